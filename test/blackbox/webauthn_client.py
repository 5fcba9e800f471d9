#!/usr/bin/python3
"""A software WebAuthn authenticator + client for the black-box tests.

Independent of authd's code: keys and signatures from python3-cryptography,
CBOR written by the small encoder below. It answers authd's options
({"publicKey": ...}) the way a browser would, or wrongly on request.

  webauthn_client.py register KEYDIR OPTIONS ORIGIN
  webauthn_client.py assert KEYDIR OPTIONS ORIGIN COUNT [RPID] [CHALLENGE]
      OPTIONS: the JSON authd answered; prints the credential JSON to send.
      KEYDIR keeps the P-256 key (key.pem) and the credential id (id).
      With WEBAUTHN_NO_UV=1 in the environment an assertion says the user
      was present but not verified (flag UV clear).
"""
import base64
import hashlib
import json
import os
import struct
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor(value):
    """Definite-length CBOR (RFC 8949) for int, bytes, str, list, dict."""
    def head(major, n):
        if n < 24:
            return bytes([major << 5 | n])
        for size, code in ((1, 24), (2, 25), (4, 26), (8, 27)):
            if n < 1 << (8 * size):
                return bytes([major << 5 | code]) + n.to_bytes(size, "big")
        raise ValueError("too large")
    if isinstance(value, bool):
        return bytes([0xF5 if value else 0xF4])
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        data = value.encode()
        return head(3, len(data)) + data
    if isinstance(value, list):
        return head(4, len(value)) + b"".join(cbor(v) for v in value)
    if isinstance(value, dict):
        return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(type(value))


def load_key(keydir):
    path = os.path.join(keydir, "key.pem")
    if not os.path.exists(path):
        os.makedirs(keydir, exist_ok=True)
        key = ec.generate_private_key(ec.SECP256R1())
        with open(path, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        with open(os.path.join(keydir, "id"), "w") as f:
            f.write(b64u(os.urandom(32)))
    with open(path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    with open(os.path.join(keydir, "id")) as f:
        return key, f.read().strip()


def client_data(kind, challenge, origin):
    return json.dumps({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False},
                      separators=(",", ":")).encode()


FLAGS_UP_UV = 0x01 | 0x04


def register(keydir, options, origin):
    key, cred_id = load_key(keydir)
    numbers = key.public_key().public_numbers()
    cose = cbor({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
    raw_id = unb64u(cred_id)
    auth_data = (hashlib.sha256(options["rp"]["id"].encode()).digest() + bytes([FLAGS_UP_UV | 0x40]) +
                 struct.pack(">I", 0) + bytes(16) + struct.pack(">H", len(raw_id)) + raw_id + cose)
    attestation = cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
    return {"id": cred_id, "type": "public-key",
            "response": {"clientDataJSON": b64u(client_data("webauthn.create", options["challenge"], origin)),
                         "attestationObject": b64u(attestation)}}


def assertion(keydir, options, origin, count, rp_id=None, challenge=None):
    key, cred_id = load_key(keydir)
    rp = rp_id or options["rpId"]
    flags = 0x01 if os.environ.get("WEBAUTHN_NO_UV") else FLAGS_UP_UV
    auth_data = hashlib.sha256(rp.encode()).digest() + bytes([flags]) + struct.pack(">I", count)
    data = client_data("webauthn.get", challenge or options["challenge"], origin)
    signature = key.sign(auth_data + hashlib.sha256(data).digest(), ec.ECDSA(hashes.SHA256()))
    return {"id": cred_id, "type": "public-key",
            "response": {"clientDataJSON": b64u(data), "authenticatorData": b64u(auth_data),
                         "signature": b64u(signature)}}


def main(argv):
    command, keydir, options = argv[1], argv[2], json.loads(argv[3])["publicKey"]
    origin = argv[4]
    if command == "register":
        out = register(keydir, options, origin)
    elif command == "assert":
        out = assertion(keydir, options, origin, int(argv[5]), argv[6] if len(argv) > 6 and argv[6] else None,
                        argv[7] if len(argv) > 7 else None)
    else:
        raise SystemExit(__doc__)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
