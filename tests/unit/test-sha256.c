// SPDX-License-Identifier: GPL-2.0-only
/*
 * SHA-256 against the test vectors of FIPS 180-2 (appendix B: "abc", the
 * 448-bit message, a million "a"s), the empty message, messages at the
 * padding's edges, and a message fed in pieces that straddle the blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "pms-sha256.h"
#include "tap.h"

#define MSG448 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

int main(void)
{
	struct pms_sha256 s;
	char hex[65], *a;
	size_t i;

	pms_sha256_buf("abc", 3, hex);
	is_str(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	       "FIPS 180-2 B.1: \"abc\"");
	pms_sha256_buf(MSG448, strlen(MSG448), hex);
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	       "FIPS 180-2 B.2: the 448-bit message");
	pms_sha256_buf("", 0, hex);
	is_str(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	       "the empty message");

	a = malloc(1000000);
	memset(a, 'a', 1000000);
	pms_sha256_buf(a, 1000000, hex);
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       "FIPS 180-2 B.3: one million 'a'");
	/* The same million in uneven pieces: block boundaries fall mid-call. */
	pms_sha256_init(&s);
	for (i = 0; i < 1000000; ) {
		size_t n = (i % 97) + 1;

		if (n > 1000000 - i)
			n = 1000000 - i;
		pms_sha256_update(&s, a + i, n);
		i += n;
	}
	pms_sha256_hex(&s, hex);
	is_str(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       "one million 'a' fed in pieces of 1..97 bytes");
	free(a);

	/*
	 * 55 and 64 bytes: the padding just fits in the block, and a whole block
	 * of message (values from Python's hashlib).
	 */
	pms_sha256_buf(MSG448, 55, hex);
	is_str(hex, "aa353e009edbaebfc6e494c8d847696896cb8b398e0173a4b5c1b636292d87c7",
	       "the 448-bit message's first 55 bytes: the padding fits");
	pms_sha256_buf(MSG448 MSG448, 64, hex);
	is_str(hex, "c5dd4b7e36545bb4b1cd13ecfd72788685ac18c90e811c245e56979d1660b99e",
	       "64 bytes: the padding takes a block of its own");
	pms_sha256_init(&s);
	pms_sha256_update(&s, MSG448, 28);
	pms_sha256_update(&s, MSG448 + 28, 28);
	pms_sha256_hex(&s, hex);
	is_str(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	       "the 448-bit message in two halves (56 bytes: padding takes a second block)");
	return tap_done();
}
