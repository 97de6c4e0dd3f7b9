#ifndef TANDEM_CCRYPTO_SHIM_H
#define TANDEM_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#endif
