// Internal to lib/crypto/: ES256 signatures in their two forms, written once.
// JWS carries r||s, 32 bytes each (RFC 7518 §3.4); OpenSSL makes and checks a
// DER ECDSA-Sig-Value.
#pragma once

#include <string>
#include <string_view>

namespace authd::crypto {

// r||s of a DER signature; "" when it is not one or r or s exceeds 32 bytes.
std::string ecdsa_der_to_raw(std::string_view der);
// The DER signature of r||s; "" unless `raw` is 64 bytes (or out of memory).
std::string ecdsa_raw_to_der(std::string_view raw);

}  // namespace authd::crypto
