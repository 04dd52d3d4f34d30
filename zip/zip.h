/*
 * zip/zip.h — a strict, read-only ZIP reader for wheels.
 *
 * Two callers shape this API:
 *  - the index, which reads one member (METADATA) of a remote wheel with
 *    HTTP range requests: it fetches the archive's tail, asks
 *    ts_zip_locate() whether that tail holds the whole central directory
 *    (torch's is ~1.3 MB, so the window may have to grow), parses it with
 *    ts_zip_open_tail(), then fetches [ts_zip_entry_span()] of one member and
 *    inflates it with ts_zip_read_member_buf();
 *  - the installer, which opens a local wheel with ts_zip_open_fd() and
 *    extracts every member with ts_zip_extract(), streaming into a sink and
 *    checking CRC-32 and sizes in the same pass.
 *
 * Strictness (a wheel is untrusted input): one disk only; the central
 * directory must end exactly where the (ZIP64) end record starts; every
 * member's local header + data must lie inside the archive, before the
 * central directory and before the next member (no overlaps); names are
 * non-empty, NUL-free and unique; encrypted members are refused; local
 * headers must agree with the central directory; inflated data must be
 * exactly the declared size with the declared CRC, and consume exactly the
 * declared compressed size.  Structural errors are TS_E_BAD_WHEEL, caps
 * TS_E_TOO_BIG, unknown methods TS_E_UNSUPPORTED.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"

/* Named caps on what a central directory may make us allocate. */
#define TS_ZIP_MAX_ENTRIES   (1u << 20)           /* torch has ~12k */
#define TS_ZIP_MAX_CD_SIZE   (256u * 1024 * 1024) /* torch's is ~1.3 MB */
/* The EOCD record (22 bytes) plus the longest comment plus the ZIP64
 * locator: a tail this long always holds the end records' start. */
#define TS_ZIP_TAIL_MAX      (22u + 65535u + 20u)

#define TS_ZIP_STORED  0
#define TS_ZIP_DEFLATE 8

struct ts_zip_entry {
  const char *name;       /* NUL-terminated, owned by the archive */
  size_t name_len;
  uint16_t method;        /* TS_ZIP_STORED / TS_ZIP_DEFLATE / other */
  uint16_t flags;         /* general purpose bits */
  uint16_t made_by;       /* high byte 3 = Unix: external_attr >> 16 is a mode */
  uint32_t crc32;
  uint64_t csize;         /* compressed size (ZIP64 extra applied) */
  uint64_t usize;         /* uncompressed size */
  uint64_t local_offset;  /* local file header */
  uint64_t limit;         /* next member's local header or the CD start */
  uint32_t external_attr;
};

/* Unix mode bits of an entry, 0 when the archive did not record any. */
uint32_t ts_zip_entry_mode(const struct ts_zip_entry *e);
bool ts_zip_entry_is_symlink(const struct ts_zip_entry *e);
bool ts_zip_entry_is_dir(const struct ts_zip_entry *e); /* name ends in '/' */

/* Where the central directory is, from the archive's tail. */
struct ts_zip_location {
  bool complete;        /* the tail given holds the whole central directory */
  uint64_t need_from;   /* when !complete: fetch the tail from this offset */
  uint64_t cd_offset;   /* valid when complete */
  uint64_t cd_size;
  uint64_t entries;
};

/* Finds the end of central directory (and ZIP64 locator/record) in `tail`,
 * which holds the LAST tail_len bytes of an archive of archive_size bytes.
 * Returns TS_OK with loc->complete false and loc->need_from set when more of
 * the tail is needed (the EOCD's comment, the ZIP64 record or the central
 * directory lies before the tail); TS_E_BAD_WHEEL when the archive is not a
 * valid single-disk ZIP. */
enum ts_code ts_zip_locate(const void *tail, size_t tail_len,
                           uint64_t archive_size, struct ts_zip_location *loc,
                           struct ts_error *err);

struct ts_zip_archive {
  struct ts_zip_entry *entries; /* in central directory order */
  size_t count;
  uint64_t archive_size;
  uint64_t cd_offset;
  uint64_t cd_size;
  uint64_t total_usize;         /* sum of declared uncompressed sizes */
  /* private */
  char *names_;
  size_t *by_name_;             /* indexes sorted by name */
  int fd_;                      /* -1 for a tail-opened archive */
  const unsigned char *map_;    /* the whole file mapped read-only, or NULL */
  size_t map_len_;
};

/* Parses the central directory from an archive tail (see ts_zip_locate).
 * A tail too short to hold the whole directory gives TS_E_INVALID ("need
 * the tail from offset N"): call ts_zip_locate first to size the window.
 * On success *out is owned by the caller (free with ts_zip_close); its
 * members can then only be read with ts_zip_read_member_buf. */
enum ts_code ts_zip_open_tail(const void *tail, size_t tail_len,
                              uint64_t archive_size,
                              struct ts_zip_archive **out,
                              struct ts_error *err);

/* Opens a local archive: reads its tail and central directory with pread.
 * The archive keeps its own dup of fd (closed by ts_zip_close), so members
 * can then be read with ts_zip_extract / ts_zip_read_member. */
enum ts_code ts_zip_open_fd(int fd, struct ts_zip_archive **out,
                            struct ts_error *err);

void ts_zip_close(struct ts_zip_archive *a);

/* Exact-name lookup (binary search); NULL when absent. */
const struct ts_zip_entry *ts_zip_find(const struct ts_zip_archive *a,
                                       const char *name, size_t name_len);

/* The byte range [*start, *end) of the archive that holds an entry's local
 * header and data (and possibly a data descriptor): what a range request
 * must fetch for ts_zip_read_member_buf. */
void ts_zip_entry_span(const struct ts_zip_entry *e, uint64_t *start,
                       uint64_t *end);

/* Receives inflated data in order.  A non-TS_OK return aborts extraction
 * and is passed through (the sink sets err). */
typedef enum ts_code ts_zip_sink_fn(void *ctx, const void *data, size_t len,
                                    struct ts_error *err);

/* Per-thread reusable buffers and decompressor for ts_zip_extract.  Members
 * up to `whole_max` bytes (both sizes) are inflated in one call (libdeflate
 * when built with it, ~2x zlib) and handed to the sink in one piece; larger
 * ones stream through zlib in 1 MiB pieces so memory stays bounded whatever
 * the member's size.  Zero-initialise, then ts_zip_scratch_clear. */
struct ts_zip_scratch {
  size_t whole_max;             /* 0 means the default, 8 MiB */
  /* private */
  unsigned char *in_;
  size_t in_alloc_;
  unsigned char *out_;
  size_t out_alloc_;
  void *inflater_;
};
void ts_zip_scratch_clear(struct ts_zip_scratch *s);

/* Extracts one member of an fd-opened archive into sink, checking local
 * header, sizes and CRC-32.  Thread-safe for distinct scratches (pread). */
enum ts_code ts_zip_extract(const struct ts_zip_archive *a,
                            const struct ts_zip_entry *e,
                            struct ts_zip_scratch *scratch,
                            ts_zip_sink_fn *sink, void *ctx,
                            struct ts_error *err);

/* Reads a whole member into out (its cap applies) from an fd-opened archive. */
enum ts_code ts_zip_read_member(const struct ts_zip_archive *a,
                                const struct ts_zip_entry *e,
                                struct ts_buf *out, struct ts_error *err);

/* Same from a buffer holding archive bytes [buf_offset, buf_offset+len),
 * which must cover ts_zip_entry_span(e) (a range-request response). */
enum ts_code ts_zip_read_member_buf(const struct ts_zip_entry *e,
                                    const void *buf, size_t len,
                                    uint64_t buf_offset, struct ts_buf *out,
                                    struct ts_error *err);

/* CRC-32 (ZIP polynomial), accelerated when libdeflate is present. */
uint32_t ts_zip_crc32(uint32_t crc, const void *data, size_t len);

/* Version of the zlib we run with (zlibVersion()). */
const char *ts_zip_zlib_version(void);
