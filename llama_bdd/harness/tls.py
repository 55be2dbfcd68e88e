"""TLS for the servers under test: a certificate authority and a server certificate made at run time
(``trustme``), and whether a llama-server binary can serve https at all.

llama-server lists ``--ssl-key-file``/``--ssl-cert-file`` in its ``--help`` whether or not it was built with
OpenSSL (cmake ``-DLLAMA_OPENSSL=ON``, which sets ``CPPHTTPLIB_OPENSSL_SUPPORT``); a build without it refuses
to start when given both ("the server is built without SSL support"). That message is compiled into such a
build only, so the binary itself says whether it can serve https, without starting it.
"""

from __future__ import annotations

import functools
import ssl
from dataclasses import dataclass
from pathlib import Path

from .http import trust_certificate_authority

NO_SSL_MARKER = b"the server is built without SSL support"
SERVER_NAMES = ("127.0.0.1", "localhost")


@dataclass(frozen=True)
class ServerCertificate:
    """PEM files of a server certificate, its private key, and the CA that signed it."""

    cert_file: Path
    key_file: Path
    ca_file: Path

    def der(self) -> bytes:
        """The server certificate (its first PEM block) in DER form, for comparing with what a server presents."""
        pem = self.cert_file.read_text()
        first = pem[: pem.index("-----END CERTIFICATE-----") + len("-----END CERTIFICATE-----")]
        return ssl.PEM_cert_to_DER_cert(first)


@functools.lru_cache(maxsize=None)
def _scan_for_marker(binary: str, mtime_ns: int, size: int) -> bool:
    marker = NO_SSL_MARKER
    tail = b""
    with open(binary, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            if marker in tail + block:
                return True
            tail = block[-len(marker):]
    return False


def missing_ssl_support(binary: Path) -> str | None:
    """Why ``binary`` cannot serve https (None when it can)."""
    info = binary.stat()
    if _scan_for_marker(str(binary.resolve()), info.st_mtime_ns, info.st_size):
        return (f"{binary} was built without SSL support (it says 'the server is built without SSL support' "
                f"when given --ssl-key-file/--ssl-cert-file); build llama-server with cmake -DLLAMA_OPENSSL=ON "
                f"and OpenSSL 3 development files to run the TLS scenarios")
    return None


def make_server_certificate(directory: Path) -> ServerCertificate:
    """A fresh CA and a certificate it signed for 127.0.0.1 and localhost, written under ``directory``; the
    harness's clients trust that CA from now on. Written once per directory (the run's, in practice)."""
    paths = ServerCertificate(directory / "server.pem", directory / "server.key", directory / "ca.pem")
    if not all(path.is_file() for path in (paths.cert_file, paths.key_file, paths.ca_file)):
        import trustme

        directory.mkdir(parents=True, exist_ok=True)
        authority = trustme.CA(organization_name="llama-bdd test CA")
        issued = authority.issue_cert(*SERVER_NAMES)
        authority.cert_pem.write_to_path(str(paths.ca_file))
        issued.private_key_pem.write_to_path(str(paths.key_file))
        issued.cert_chain_pems[0].write_to_path(str(paths.cert_file))
    trust_certificate_authority(paths.ca_file.read_text())
    return paths
