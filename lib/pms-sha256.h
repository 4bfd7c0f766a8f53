/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_SHA256_H
#define PMS_SHA256_H

#include <stddef.h>
#include <stdint.h>

/*
 * SHA-256 (FIPS 180-4), small and unhurried: it hashes plan files and
 * kernel configurations (tens of KiB) so that two runs can say they used
 * the same ones.  The design card allows no crypto library, and this needs
 * no secrecy, only the published algorithm.
 */
struct pms_sha256 {
	uint32_t h[8];
	uint64_t bytes;		/* message length so far */
	uint8_t buf[64];	/* a block being filled */
	size_t fill;
};

void pms_sha256_init(struct pms_sha256 *s);
void pms_sha256_update(struct pms_sha256 *s, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL in @hex. */
void pms_sha256_hex(struct pms_sha256 *s, char hex[65]);

/* One call: the hex digest of @len bytes at @data. */
void pms_sha256_buf(const void *data, size_t len, char hex[65]);

#endif
