"""The receiver check (``conformance receiver``): a platform's webhook endpoint, checked
against the platform's duties of §5 Authentication and §6 Events. Never collected by
``conformance run``, whose suites are under ``suites/``."""
