/*
 * secret.c — randomness and hashes of the server: game ids, seeds, seat
 * tokens (libsodium) and the WebSocket accept key (GnuTLS SHA-1).
 *
 * Invariants: every id, seed and token comes from the operating system's
 * generator (randombytes); a token carries SRV_TOKEN_BYTES (256) random bits
 * and only its BLAKE2b-256 hash is ever stored or kept in memory after the
 * creating request returns; hashes are compared in constant time.  Tokens
 * of a game created with a request key (lobby.c) are derived from that key,
 * which only its creator holds, so a repeated request can answer them again.
 */
#include "base.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <sodium.h>
#include <string.h>

int srv_secret_init(void)
{
    return sodium_init() < 0 ? -1 : 0;
}

void srv_secret_id(char out[SRV_ID_LEN + 1])
{
    /* 12 characters from a 32-letter alphabet without look-alikes: 60 bits. */
    static const char alphabet[] = "abcdefghijkmnpqrstuvwxyz23456789";
    uint8_t raw[SRV_ID_LEN];
    randombytes_buf(raw, sizeof raw);
    for (int i = 0; i < SRV_ID_LEN; i++)
        out[i] = alphabet[raw[i] & 31];
    out[SRV_ID_LEN] = '\0';
}

uint64_t srv_secret_u64(void)
{
    uint64_t v;
    randombytes_buf(&v, sizeof v);
    return v;
}

void srv_secret_hash(const char *token, uint8_t hash[SRV_HASH_LEN])
{
    crypto_generichash(hash, SRV_HASH_LEN, (const unsigned char *)token, strlen(token), NULL, 0);
}

void srv_secret_token(char *text, size_t textlen, uint8_t hash[SRV_HASH_LEN])
{
    uint8_t raw[SRV_TOKEN_BYTES];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2base64(text, textlen, raw, sizeof raw, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(raw, sizeof raw);
    srv_secret_hash(text, hash);
}

void srv_secret_derive(const char *key, const char *label, char *text, size_t textlen,
                       uint8_t hash[SRV_HASH_LEN])
{
    /* BLAKE2b keyed by the client's request key (22 to 64 bytes, as random
     * as a token): the same key and label give the same token again. */
    uint8_t raw[SRV_TOKEN_BYTES];
    crypto_generichash(raw, sizeof raw, (const unsigned char *)label, strlen(label),
                       (const unsigned char *)key, strlen(key));
    sodium_bin2base64(text, textlen, raw, sizeof raw, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero(raw, sizeof raw);
    srv_secret_hash(text, hash);
}

bool srv_secret_equal(const uint8_t a[SRV_HASH_LEN], const uint8_t b[SRV_HASH_LEN])
{
    return sodium_memcmp(a, b, SRV_HASH_LEN) == 0;
}

int srv_secret_ws_accept(const char *key, char out[64])
{
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    char buf[128];
    size_t klen = strlen(key);
    if (klen == 0 || klen + sizeof guid > sizeof buf)
        return -1;
    memcpy(buf, key, klen);
    memcpy(buf + klen, guid, sizeof guid - 1);
    unsigned char digest[20];
    if (gnutls_hash_fast(GNUTLS_DIG_SHA1, buf, klen + sizeof guid - 1, digest) != 0)
        return -1;
    sodium_bin2base64(out, 64, digest, sizeof digest, sodium_base64_VARIANT_ORIGINAL);
    return 0;
}
