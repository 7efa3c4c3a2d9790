"""Conformance suites, one package per spec part."""
