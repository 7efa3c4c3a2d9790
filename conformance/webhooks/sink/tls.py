"""Throwaway TLS material for the sink's HTTPS mode.

A fresh CA and a server certificate for the loopback names are made per sink; the CA's PEM
is what a target must be told to trust. Nothing is written anywhere except by
:func:`server_ssl_context`, which loads the chain through a private temporary directory
(the ``ssl`` module only loads chains from files) and removes it at once.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import ssl
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["DEFAULT_TLS_HOSTS", "TlsMaterial", "generate_tls_material", "server_ssl_context"]

DEFAULT_TLS_HOSTS: tuple[str, ...] = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True, slots=True)
class TlsMaterial:
    """PEM blobs of a throwaway CA and the server certificate it signed."""

    ca_pem: bytes
    cert_pem: bytes
    key_pem: bytes


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "gpsi-conformance webhook sink"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _san(hosts: Sequence[str]) -> x509.SubjectAlternativeName:
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return x509.SubjectAlternativeName(names)


def _key_usage(*, signs_certificates: bool) -> x509.KeyUsage:
    """A CA signs certificates and lists; a server signs and agrees keys (ECDHE)."""
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=not signs_certificates,
        key_cert_sign=signs_certificates,
        crl_sign=signs_certificates,
        encipher_only=False,
        decipher_only=False,
    )


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey,
    not_before: dt.datetime, not_after: dt.datetime,
) -> x509.CertificateBuilder:  # fmt: skip
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
    )


def generate_tls_material(
    hosts: Sequence[str] = DEFAULT_TLS_HOSTS, *, valid_for: dt.timedelta = dt.timedelta(days=2)
) -> TlsMaterial:
    """Make a P-256 CA and a server certificate for ``hosts`` (IP addresses or DNS names)."""
    if not hosts:
        raise ValueError("generate_tls_material: hosts is empty; give at least one name")
    now = dt.datetime.now(dt.UTC)
    not_before = now - dt.timedelta(hours=1)
    not_after = now + valid_for

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("gpsi-conformance throwaway CA")
    ca_ski = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca_cert = (
        _builder(ca_name, ca_name, ca_key.public_key(), not_before, not_after)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_key_usage(signs_certificates=True), critical=True)
        .add_extension(ca_ski, critical=False)
        .sign(ca_key, hashes.SHA256())
    )

    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        _builder(_name(hosts[0]), ca_name, key.public_key(), not_before, not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(signs_certificates=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(_san(hosts), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    return TlsMaterial(
        ca_pem=ca_cert.public_bytes(serialization.Encoding.PEM),
        cert_pem=cert.public_bytes(serialization.Encoding.PEM),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


def server_ssl_context(material: TlsMaterial) -> ssl.SSLContext:
    """A server-side context presenting ``material``'s certificate (TLS 1.2 or later)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    with tempfile.TemporaryDirectory(prefix="gpsi-sink-tls-") as tmp:
        chain = Path(tmp) / "chain.pem"
        key = Path(tmp) / "key.pem"
        chain.write_bytes(material.cert_pem + material.ca_pem)
        key.touch(mode=0o600)
        key.write_bytes(material.key_pem)
        context.load_cert_chain(certfile=chain, keyfile=key)
    return context
