/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The seal: what the helper decides for the package's purge while it is
 * still here, at the prerm's remove, so that debian/postrm need not decide
 * it again in shell once the helper is gone. Four lines:
 *
 *	# wp-panel-nettune seal 1
 *	root b25d5900215b47c9:2               the root it was made for
 *	kernel ok | kernel KIND: REASON       may the running kernel be changed
 *	journal CRC SIZE | none | refused     the journal as the helper checked
 *	                                      and wrote it: cksum's answer
 *
 * Purge takes the journal's steps only while "cksum <journal" prints what
 * the seal says: the helper's reader checked those very bytes (journal.c),
 * and no second reader in shell has to. It changes the running kernel only
 * where the seal says it may, for the root it is run on. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "dirfd.h"
#include "seal.h"

static const char seal_name[] = "sealed";

static uint32_t crc_byte(uint32_t crc, unsigned char c)
{
	crc ^= (uint32_t)c << 24;
	for (int bit = 0; bit < 8; bit++)
		crc = crc & 0x80000000u ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
	return crc;
}

uint32_t seal_cksum(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t crc = 0;

	for (size_t i = 0; i < len; i++)
		crc = crc_byte(crc, p[i]);
	for (; len > 0; len >>= 8)
		crc = crc_byte(crc, len & 0xff);
	return ~crc;
}

int seal_root_id(const char *root, char *buf, size_t size)
{
	const char *path = root[0] ? root : "/";
	unsigned words[2];
	struct statfs sfs;
	struct stat st;
	int len;

	if (statfs(path, &sfs) < 0 || stat(path, &st) < 0)
		return -errno;
	/* As coreutils prints f_fsid: its first word high, its second low. */
	memcpy(words, &sfs.f_fsid, sizeof(words));
	len = snprintf(buf, size, "%" PRIx64 ":%" PRIu64,
		       (uint64_t)words[0] << 32 | words[1], (uint64_t)st.st_ino);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/* Through the state directory's descriptor, as every file of the journal's. */
int seal_write(const char *root, const char *body)
{
	char data[SEAL_SIZE_MAX + 1];
	int len;

	len = snprintf(data, sizeof(data), "%s\n%s", SEAL_HEADER, body);
	if (len < 0 || len > SEAL_SIZE_MAX)
		return -EFBIG;
	return dirfd_write_whole(root, STATE_DIR, seal_name, data, (size_t)len);
}

int seal_remove(const char *root)
{
	int dir_fd, r;

	r = dirfd_open(root, STATE_DIR, false, &dir_fd);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = unlinkat(dir_fd, seal_name, 0) < 0 && errno != ENOENT ? -errno : 0;
	close(dir_fd);
	return r;
}
