#include "zip/zip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/alloc.h"

#ifdef TS_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#define SIG_LOCAL   0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD    0x06054b50u
#define SIG_EOCD64  0x06064b50u
#define SIG_LOC64   0x07064b50u

#define EOCD_LEN   22u
#define LOC64_LEN  20u
#define EOCD64_LEN 56u
#define CDH_LEN    46u
#define LFH_LEN    30u

/* Members larger than the whole-member limit are inflated through two
 * buffers of this size: small enough to stay in a core's L2 cache, so the
 * same pages are reused rather than 1 MiB of fresh ones faulted in per
 * thread. */
#define STREAM_CHUNK (256u << 10)
/* A member up to this size is read and inflated in one piece (faster;
 * the extraction scratch may lower it per thread). */
#define WHOLE_DEFAULT (8u << 20)
/* The whole-member limit when a member is read into a buffer: a larger
 * one is inflated through STREAM_CHUNK buffers straight into it.  Whole
 * means libdeflate, ~3x fewer instructions than zlib's streaming: a torch
 * wheel's 1.2 MB RECORD is read before anything is unpacked (zlib: 20 M
 * instructions), at the price of a second copy of the member for a moment. */
#define WHOLE_READ_MEMBER (8u << 20)
/* A member name up to this long is read with its local header in one
 * pread (all names in practice). */
#define NAME_ONE_READ 512u
/* The first read from an archive's end: room for the end record behind
 * the longest comment (65,535 bytes); more is read when the records say so. */
#define FIRST_TAIL_READ 65536u
/* Local extra field bytes read with a member's header and data at once
 * (wheels carry none, or a few bytes of extended timestamps). */
#define LOCAL_EXTRA_ROOM 64u

static uint16_t rd16(const unsigned char *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
static uint64_t rd64(const unsigned char *p) {
  return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

uint32_t ts_zip_crc32(uint32_t crc, const void *data, size_t len) {
#ifdef TS_HAVE_LIBDEFLATE
  return libdeflate_crc32(crc, data, len);
#else
  const unsigned char *p = data;
  while (len) {
    uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
    crc = (uint32_t)crc32(crc, p, n);
    p += n;
    len -= n;
  }
  return crc;
#endif
}

uint32_t ts_zip_entry_mode(const struct ts_zip_entry *e) {
  if ((e->made_by >> 8) != 3) /* not Unix: the attribute is not a mode */
    return 0;
  return e->external_attr >> 16;
}

bool ts_zip_entry_is_symlink(const struct ts_zip_entry *e) {
  return (ts_zip_entry_mode(e) & S_IFMT) == S_IFLNK;
}

bool ts_zip_entry_is_dir(const struct ts_zip_entry *e) {
  return e->name_len > 0 && e->name[e->name_len - 1] == '/';
}

void ts_zip_entry_span(const struct ts_zip_entry *e, uint64_t *start,
                       uint64_t *end) {
  *start = e->local_offset;
  *end = e->limit;
}

/* ---- end records ---------------------------------------------------- */

enum ts_code ts_zip_locate(const void *tail_v, size_t tail_len,
                           uint64_t archive_size, struct ts_zip_location *loc,
                           struct ts_error *err) {
  const unsigned char *tail = tail_v;
  memset(loc, 0, sizeof *loc);
  if (tail_len > archive_size)
    return ts_error_set(err, TS_E_INVALID,
                        "zip tail of %zu bytes is longer than the archive "
                        "(%llu bytes)",
                        tail_len, (unsigned long long)archive_size);
  if (archive_size < EOCD_LEN)
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "not a zip archive: %llu bytes is too short",
                        (unsigned long long)archive_size);
  uint64_t tail_start = archive_size - tail_len;

  /* The last EOCD signature whose comment ends exactly at the archive's end
   * (anything after it would be a second, smuggled archive). */
  size_t pos = SIZE_MAX;
  if (tail_len >= EOCD_LEN) {
    for (size_t i = tail_len - EOCD_LEN + 1; i-- > 0;) {
      if (rd32(tail + i) == SIG_EOCD &&
          (size_t)rd16(tail + i + 20) == tail_len - i - EOCD_LEN) {
        pos = i;
        break;
      }
      if (tail_len - i > TS_ZIP_TAIL_MAX)
        break;
    }
  }
  if (pos == SIZE_MAX) {
    uint64_t want = archive_size < TS_ZIP_TAIL_MAX ? archive_size
                                                   : TS_ZIP_TAIL_MAX;
    if (tail_len < want) {
      loc->need_from = archive_size - want;
      return TS_OK;
    }
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "not a zip archive: no end of central directory "
                        "record");
  }
  const unsigned char *e = tail + pos;
  uint64_t eocd_off = tail_start + pos;
  uint16_t disk = rd16(e + 4), cd_disk = rd16(e + 6);
  uint64_t n_disk = rd16(e + 8), n = rd16(e + 10);
  uint64_t cd_size = rd32(e + 12), cd_off = rd32(e + 16);
  uint64_t cd_end_expected = eocd_off;

  bool need64 = n == 0xFFFF || n_disk == 0xFFFF || cd_size == 0xFFFFFFFFu ||
                cd_off == 0xFFFFFFFFu || disk == 0xFFFF || cd_disk == 0xFFFF;
  bool has_loc = false;
  if (eocd_off >= LOC64_LEN) {
    if (pos >= LOC64_LEN)
      has_loc = rd32(e - LOC64_LEN) == SIG_LOC64;
    else { /* a locator may sit just before the tail */
      loc->need_from = eocd_off - LOC64_LEN;
      return TS_OK;
    }
  }
  if (need64 && !has_loc)
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip archive needs ZIP64 but has no ZIP64 locator");
  if (has_loc) {
    const unsigned char *l = e - LOC64_LEN;
    uint64_t rec_off = rd64(l + 8);
    if (rd32(l + 4) != 0 || rd32(l + 16) > 1)
      return ts_error_set(err, TS_E_UNSUPPORTED,
                          "multi-disk zip archives are not supported");
    if (rec_off > eocd_off - LOC64_LEN ||
        eocd_off - LOC64_LEN - rec_off < EOCD64_LEN)
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "ZIP64 end record offset %llu is out of range",
                          (unsigned long long)rec_off);
    if (rec_off < tail_start) {
      loc->need_from = rec_off;
      return TS_OK;
    }
    const unsigned char *r = tail + (rec_off - tail_start);
    if (rd32(r) != SIG_EOCD64)
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "bad ZIP64 end of central directory signature");
    uint64_t rec_size = rd64(r + 4);
    if (rec_size < EOCD64_LEN - 12 ||
        rec_size != eocd_off - LOC64_LEN - rec_off - 12)
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "ZIP64 end record size %llu is inconsistent",
                          (unsigned long long)rec_size);
    if (rd32(r + 16) != 0 || rd32(r + 20) != 0)
      return ts_error_set(err, TS_E_UNSUPPORTED,
                          "multi-disk zip archives are not supported");
    n_disk = rd64(r + 24);
    n = rd64(r + 32);
    cd_size = rd64(r + 40);
    cd_off = rd64(r + 48);
    cd_end_expected = rec_off;
  } else if (disk != 0 || cd_disk != 0) {
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "multi-disk zip archives are not supported");
  }
  if (n != n_disk)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "multi-disk zip archives are not supported");
  if (n > TS_ZIP_MAX_ENTRIES)
    return ts_error_set(err, TS_E_TOO_BIG,
                        "zip archive has %llu entries (limit %u)",
                        (unsigned long long)n, TS_ZIP_MAX_ENTRIES);
  if (cd_size > TS_ZIP_MAX_CD_SIZE)
    return ts_error_set(err, TS_E_TOO_BIG,
                        "zip central directory is %llu bytes (limit %u)",
                        (unsigned long long)cd_size, TS_ZIP_MAX_CD_SIZE);
  /* Data before the directory would mean shifted offsets (a prepended
   * stub) or a second archive; wheels never have either. */
  if (cd_off > cd_end_expected || cd_end_expected - cd_off != cd_size)
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip central directory (offset %llu, %llu bytes) does "
                        "not end at the end record (offset %llu): truncated "
                        "or altered archive",
                        (unsigned long long)cd_off,
                        (unsigned long long)cd_size,
                        (unsigned long long)cd_end_expected);
  if (cd_size < n * CDH_LEN)
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip central directory of %llu bytes cannot hold %llu "
                        "entries",
                        (unsigned long long)cd_size, (unsigned long long)n);
  loc->cd_offset = cd_off;
  loc->cd_size = cd_size;
  loc->entries = n;
  if (cd_off < tail_start) {
    loc->need_from = cd_off;
    return TS_OK;
  }
  loc->complete = true;
  return TS_OK;
}

/* ---- central directory ---------------------------------------------- */

static int cmp_names(const struct ts_zip_entry *a, const struct ts_zip_entry *b) {
  size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
  int c = memcmp(a->name, b->name, n);
  if (c)
    return c;
  return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

struct idx_sort {
  const struct ts_zip_entry *entries;
  size_t i;
};

static int cmp_by_name(const void *x, const void *y) {
  const struct idx_sort *a = x, *b = y;
  return cmp_names(&a->entries[a->i], &b->entries[b->i]);
}

static int cmp_by_offset(const void *x, const void *y) {
  const struct idx_sort *a = x, *b = y;
  uint64_t oa = a->entries[a->i].local_offset,
           ob = b->entries[b->i].local_offset;
  return oa < ob ? -1 : oa > ob;
}

static enum ts_code parse_zip64_extra(struct ts_zip_entry *e,
                                      const unsigned char *x, size_t xlen,
                                      bool want_u, bool want_c, bool want_o,
                                      struct ts_error *err) {
  size_t i = 0;
  while (i + 4 <= xlen) {
    uint16_t id = rd16(x + i), sz = rd16(x + i + 2);
    if (i + 4 + sz > xlen)
      break;
    if (id == 0x0001) {
      const unsigned char *f = x + i + 4;
      size_t left = sz;
      if (want_u) {
        if (left < 8)
          goto short_extra;
        e->usize = rd64(f);
        f += 8;
        left -= 8;
      }
      if (want_c) {
        if (left < 8)
          goto short_extra;
        e->csize = rd64(f);
        f += 8;
        left -= 8;
      }
      if (want_o) {
        if (left < 8)
          goto short_extra;
        e->local_offset = rd64(f);
      }
      return TS_OK;
    }
    i += 4 + (size_t)sz;
  }
  if (!want_u && !want_c && !want_o)
    return TS_OK;
short_extra:
  return ts_error_set(err, TS_E_BAD_WHEEL,
                      "zip entry '%s' lacks the ZIP64 sizes it announces",
                      e->name);
}

static enum ts_code parse_directory(const unsigned char *cd,
                                    const struct ts_zip_location *loc,
                                    uint64_t archive_size,
                                    struct ts_zip_archive **out,
                                    struct ts_error *err) {
  struct ts_zip_archive *a = ts_xcalloc(1, sizeof *a);
  size_t n = (size_t)loc->entries;
  a->fd_ = -1;
  a->archive_size = archive_size;
  a->cd_offset = loc->cd_offset;
  a->cd_size = loc->cd_size;
  a->count = n;
  /* Names total at most cd_size bytes, plus one NUL each. */
  a->entries = ts_xcalloc(n, sizeof *a->entries);
  a->names_ = ts_xmalloc((size_t)loc->cd_size + n + 1);
  a->by_name_ = ts_xreallocarray(NULL, n, sizeof *a->by_name_);
  struct idx_sort *idx = ts_xreallocarray(NULL, n, sizeof *idx);
  enum ts_code rc = TS_OK;
  size_t p = 0, np = 0;
  size_t cd_size = (size_t)loc->cd_size;
  for (size_t k = 0; k < n; k++) {
    if (cd_size - p < CDH_LEN || rd32(cd + p) != SIG_CENTRAL) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip central directory entry %zu is malformed", k);
      goto fail;
    }
    const unsigned char *h = cd + p;
    size_t nl = rd16(h + 28), xl = rd16(h + 30), cl = rd16(h + 32);
    if (cd_size - p - CDH_LEN < nl + xl + cl) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip central directory entry %zu overruns the "
                        "directory",
                        k);
      goto fail;
    }
    struct ts_zip_entry *e = &a->entries[k];
    const char *name = (const char *)h + CDH_LEN;
    if (nl == 0 || memchr(name, '\0', nl)) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry %zu has an empty name or a NUL in its name",
                        k);
      goto fail;
    }
    memcpy(a->names_ + np, name, nl);
    a->names_[np + nl] = '\0';
    e->name = a->names_ + np;
    e->name_len = nl;
    np += nl + 1;
    e->made_by = rd16(h + 4);
    e->flags = rd16(h + 8);
    e->method = rd16(h + 10);
    e->crc32 = rd32(h + 16);
    e->csize = rd32(h + 20);
    e->usize = rd32(h + 24);
    e->external_attr = rd32(h + 38);
    e->local_offset = rd32(h + 42);
    uint16_t disk = rd16(h + 34);
    if (e->flags & 0x0041) { /* bit 0 encrypted, bit 6 strong encryption */
      rc = ts_error_set(err, TS_E_BAD_WHEEL, "zip entry '%s' is encrypted",
                        e->name);
      goto fail;
    }
    rc = parse_zip64_extra(e, h + CDH_LEN + nl, xl, e->usize == 0xFFFFFFFFu,
                           e->csize == 0xFFFFFFFFu,
                           e->local_offset == 0xFFFFFFFFu, err);
    if (rc != TS_OK)
      goto fail;
    if (disk != 0 && disk != 0xFFFF) {
      rc = ts_error_set(err, TS_E_UNSUPPORTED,
                        "multi-disk zip archives are not supported");
      goto fail;
    }
    /* The local header alone needs 30 bytes + the name, before the CD. */
    if (e->local_offset > loc->cd_offset ||
        loc->cd_offset - e->local_offset < LFH_LEN + nl ||
        loc->cd_offset - e->local_offset - LFH_LEN - nl < e->csize) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry '%s' (offset %llu, %llu bytes) lies outside "
                        "the archive's data",
                        e->name, (unsigned long long)e->local_offset,
                        (unsigned long long)e->csize);
      goto fail;
    }
    if (e->method == TS_ZIP_STORED && e->csize != e->usize) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "stored zip entry '%s' has different sizes", e->name);
      goto fail;
    }
    if (a->total_usize + e->usize < a->total_usize) {
      rc = ts_error_set(err, TS_E_TOO_BIG, "zip sizes overflow");
      goto fail;
    }
    a->total_usize += e->usize;
    p += CDH_LEN + nl + xl + cl;
  }
  if (p != cd_size) {
    rc = ts_error_set(err, TS_E_BAD_WHEEL,
                      "zip central directory has %zu stray bytes",
                      cd_size - p);
    goto fail;
  }

  /* Overlap check: in offset order, each member must end before the next
   * starts (a shared local header is the classic overlapping-bomb trick). */
  for (size_t k = 0; k < n; k++)
    idx[k] = (struct idx_sort){a->entries, k};
  qsort(idx, n, sizeof *idx, cmp_by_offset);
  for (size_t k = 0; k < n; k++) {
    struct ts_zip_entry *e = &a->entries[idx[k].i];
    uint64_t next = k + 1 < n ? a->entries[idx[k + 1].i].local_offset
                              : loc->cd_offset;
    if (next - e->local_offset < LFH_LEN + e->name_len ||
        next - e->local_offset - LFH_LEN - e->name_len < e->csize) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry '%s' overlaps the next entry", e->name);
      goto fail;
    }
    e->limit = next;
  }
  qsort(idx, n, sizeof *idx, cmp_by_name);
  for (size_t k = 0; k < n; k++) {
    a->by_name_[k] = idx[k].i;
    if (k && cmp_names(&a->entries[idx[k - 1].i], &a->entries[idx[k].i]) == 0) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip archive has two entries named '%s'",
                        a->entries[idx[k].i].name);
      goto fail;
    }
  }
  free(idx);
  *out = a;
  return TS_OK;
fail:
  free(idx);
  ts_zip_close(a);
  return rc;
}

enum ts_code ts_zip_open_tail(const void *tail, size_t tail_len,
                              uint64_t archive_size,
                              struct ts_zip_archive **out,
                              struct ts_error *err) {
  struct ts_zip_location loc;
  *out = NULL;
  enum ts_code rc = ts_zip_locate(tail, tail_len, archive_size, &loc, err);
  if (rc != TS_OK)
    return rc;
  if (!loc.complete)
    return ts_error_set(err, TS_E_INVALID,
                        "zip tail too short: need the tail from offset %llu",
                        (unsigned long long)loc.need_from);
  uint64_t tail_start = archive_size - tail_len;
  return parse_directory((const unsigned char *)tail +
                             (loc.cd_offset - tail_start),
                         &loc, archive_size, out, err);
}

static enum ts_code pread_all(int fd, void *buf, size_t len, uint64_t off,
                              struct ts_error *err) {
  unsigned char *p = buf;
  while (len) {
    ssize_t n = pread(fd, p, len, (off_t)off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return ts_error_set(err, TS_E_IO, "cannot read zip archive: %s",
                          strerror(errno));
    if (n == 0)
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "zip archive is truncated (offset %llu)",
                          (unsigned long long)off);
    p += n;
    len -= (size_t)n;
    off += (uint64_t)n;
  }
  return TS_OK;
}

/* Members are inflated straight from a read-only mapping of the file:
 * pread copied every compressed byte (34 MB for a torch wheel) from the
 * page cache into a buffer first, and that copy and its buffer's page
 * faults were a tenth of a big install's CPU time.  Without a mapping
 * (mmap refused, an empty file) members are read with pread as before.
 * A file shrunk by another process while mapped would end the process
 * with SIGBUS where pread gave an error; unpacking writes only into a
 * temporary directory, so even then nothing is left half-installed. */
static void map_archive(struct ts_zip_archive *a, uint64_t size) {
  if (size == 0 || size > (uint64_t)SIZE_MAX)
    return;
  void *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, a->fd_, 0);
  if (m == MAP_FAILED)
    return;
  /* Read ahead: the workers walk the members in size order, not file
   * order, so the kernel's sequential read-ahead would not kick in. */
  (void)madvise(m, (size_t)size, MADV_WILLNEED);
  a->map_ = m;
  a->map_len_ = (size_t)size;
}

enum ts_code ts_zip_open_fd(int fd, struct ts_zip_archive **out,
                            struct ts_error *err) {
  *out = NULL;
  struct stat st;
  if (fstat(fd, &st) != 0)
    return ts_error_set(err, TS_E_IO, "cannot stat zip archive: %s",
                        strerror(errno));
  if (!S_ISREG(st.st_mode))
    return ts_error_set(err, TS_E_BAD_WHEEL, "zip archive is not a file");
  uint64_t size = (uint64_t)st.st_size;
  size_t want = size < FIRST_TAIL_READ ? (size_t)size : FIRST_TAIL_READ;
  unsigned char *tail = NULL;
  enum ts_code rc;
  struct ts_zip_location loc;
  for (;;) {
    tail = ts_xrealloc(tail, want);
    rc = pread_all(fd, tail, want, size - want, err);
    if (rc == TS_OK)
      rc = ts_zip_locate(tail, want, size, &loc, err);
    if (rc != TS_OK) {
      free(tail);
      return rc;
    }
    if (loc.complete)
      break;
    uint64_t need = size - loc.need_from;
    if (need <= want || need > (uint64_t)TS_ZIP_MAX_CD_SIZE + 2 * TS_ZIP_TAIL_MAX) {
      free(tail);
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "zip end records are inconsistent");
    }
    want = (size_t)need;
  }
  struct ts_zip_archive *a = NULL;
  rc = parse_directory(tail + (loc.cd_offset - (size - want)), &loc, size, &a,
                       err);
  free(tail);
  if (rc != TS_OK)
    return rc;
  a->fd_ = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (a->fd_ < 0) {
    ts_zip_close(a);
    return ts_error_set(err, TS_E_IO, "cannot dup zip fd: %s",
                        strerror(errno));
  }
  map_archive(a, size);
  *out = a;
  return TS_OK;
}

void ts_zip_close(struct ts_zip_archive *a) {
  if (!a)
    return;
  if (a->map_)
    munmap((void *)a->map_, a->map_len_);
  if (a->fd_ >= 0)
    close(a->fd_);
  free(a->entries);
  free(a->names_);
  free(a->by_name_);
  free(a);
}

const struct ts_zip_entry *ts_zip_find(const struct ts_zip_archive *a,
                                       const char *name, size_t name_len) {
  struct ts_zip_entry key = {.name = name, .name_len = name_len};
  size_t lo = 0, hi = a->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const struct ts_zip_entry *e = &a->entries[a->by_name_[mid]];
    int c = cmp_names(e, &key);
    if (c == 0)
      return e;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* ---- members -------------------------------------------------------- */

/* Where member bytes come from: an fd (pread) or an in-memory range.
 * stream_fd, when not -1, is the file behind an in-memory range: a member
 * too large to inflate whole is read from it in STREAM_CHUNK pieces rather
 * than from the mapping.  On a paravirtualised VM every first touch of a
 * mapped 4 KiB page costs a fault and a shadow page-table fill; a torch
 * wheel's two 23 MB libraries are 27 of its 36 compressed MB, and one
 * reused buffer filled by pread touches none of those pages. */
struct source {
  int fd;
  const unsigned char *buf;
  uint64_t buf_offset;
  size_t buf_len;
  int stream_fd;
};

static enum ts_code src_read(const struct source *s, void *dst, size_t len,
                             uint64_t off, struct ts_error *err) {
  if (s->fd >= 0)
    return pread_all(s->fd, dst, len, off, err);
  if (off < s->buf_offset || off - s->buf_offset > s->buf_len ||
      s->buf_len - (off - s->buf_offset) < len)
    return ts_error_set(err, TS_E_INVALID,
                        "zip range [%llu, +%zu) is not in the buffer given",
                        (unsigned long long)off, len);
  memcpy(dst, s->buf + (off - s->buf_offset), len);
  return TS_OK;
}

/* Validates the local header against the central directory and returns the
 * archive offset of the member's data. */
static enum ts_code local_data_offset(const struct source *s,
                                      const struct ts_zip_entry *e,
                                      uint64_t *data_off,
                                      struct ts_error *err) {
  /* One read for the header and the name when the name is short (always,
   * in practice): extraction is syscall-bound on many-file wheels. */
  unsigned char hb[LFH_LEN + NAME_ONE_READ];
  size_t first = LFH_LEN + (e->name_len <= NAME_ONE_READ ? e->name_len : 0);
  if (first > e->limit - e->local_offset)
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry '%s' overlaps the next entry", e->name);
  enum ts_code rc = src_read(s, hb, first, e->local_offset, err);
  if (rc != TS_OK)
    return rc;
  const unsigned char *h = hb;
  if (rd32(h) != SIG_LOCAL)
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry '%s': bad local header signature", e->name);
  size_t nl = rd16(h + 26), xl = rd16(h + 28);
  uint16_t flags = rd16(h + 6), method = rd16(h + 8);
  if (nl != e->name_len || method != e->method || (flags & 0x41))
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry '%s': local header disagrees with the "
                        "central directory",
                        e->name);
  uint64_t start = e->local_offset + LFH_LEN + nl + xl;
  if (start > e->limit || e->limit - start < e->csize)
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry '%s' overlaps the next entry", e->name);
  if (first > LFH_LEN) {
    if (memcmp(hb + LFH_LEN, e->name, nl) != 0)
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "zip entry '%s': local header names another file",
                          e->name);
  } else {
    char name[512];
    for (size_t done = 0; done < nl;) {
      size_t k = nl - done < sizeof name ? nl - done : sizeof name;
      rc = src_read(s, name, k, e->local_offset + LFH_LEN + done, err);
      if (rc != TS_OK)
        return rc;
      if (memcmp(name, e->name + done, k) != 0)
        return ts_error_set(err, TS_E_BAD_WHEEL,
                            "zip entry '%s': local header names another file",
                            e->name);
      done += k;
    }
  }
  if (!(flags & 0x08)) {
    uint32_t crc = rd32(h + 14), cs = rd32(h + 18), us = rd32(h + 22);
    if (crc != e->crc32 || (cs != 0xFFFFFFFFu && cs != e->csize) ||
        (us != 0xFFFFFFFFu && us != e->usize))
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "zip entry '%s': local header sizes or CRC disagree "
                          "with the central directory",
                          e->name);
  }
  *data_off = start;
  return TS_OK;
}

/* Sizes reach here only under the caller's caps (WHOLE_DEFAULT, STREAM_CHUNK). */
static void grow(unsigned char **p, size_t *alloc, size_t need) {
  if (*alloc >= need && *p)
    return;
  *p = ts_xrealloc(*p, need);
  *alloc = need ? need : 1;
}

static enum ts_code crc_check(const struct ts_zip_entry *e, uint32_t crc,
                              struct ts_error *err) {
  if (crc != e->crc32)
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry '%s' is corrupt: CRC-32 %08x, expected %08x",
                        e->name, crc, e->crc32);
  return TS_OK;
}

/* `input`: the member's compressed bytes when already read (into sc's
 * input buffer), else NULL: read from s. */
static enum ts_code extract_whole(const struct source *s,
                                  const struct ts_zip_entry *e,
                                  uint64_t data_off,
                                  const unsigned char *input,
                                  struct ts_zip_scratch *sc,
                                  ts_zip_sink_fn *sink, void *ctx,
                                  struct ts_error *err) {
  size_t cs = (size_t)e->csize, us = (size_t)e->usize;
  enum ts_code rc = TS_OK;
  if (!input) {
    grow(&sc->in_, &sc->in_alloc_, cs);
    rc = src_read(s, sc->in_, cs, data_off, err);
    if (rc != TS_OK)
      return rc;
    input = sc->in_;
  }
  const unsigned char *data = input;
  if (e->method == TS_ZIP_DEFLATE) {
    grow(&sc->out_, &sc->out_alloc_, us);
#ifdef TS_HAVE_LIBDEFLATE
    if (!sc->inflater_) {
      sc->inflater_ = libdeflate_alloc_decompressor();
      if (!sc->inflater_)
        return ts_error_set(err, TS_E_NOMEM, "out of memory for inflate");
    }
    size_t in_used = 0, out_len = 0;
    enum libdeflate_result r = libdeflate_deflate_decompress_ex(
        sc->inflater_, input, cs, sc->out_, us, &in_used, &out_len);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "zip entry '%s' inflates to more than its declared "
                          "%zu bytes",
                          e->name, us);
    if (r != LIBDEFLATE_SUCCESS)
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "zip entry '%s' is corrupt or truncated (bad "
                          "deflate data)",
                          e->name);
    if (out_len != us || in_used != cs)
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "zip entry '%s' sizes lie: %zu of %zu compressed "
                          "bytes gave %zu of %zu",
                          e->name, in_used, cs, out_len, us);
#else
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK)
      return ts_error_set(err, TS_E_NOMEM, "out of memory for inflate");
    z.next_in = (unsigned char *)input;
    z.avail_in = (uInt)cs;
    z.next_out = sc->out_;
    z.avail_out = (uInt)us;
    int zr = inflate(&z, Z_FINISH);
    size_t out_len = us - z.avail_out, in_left = z.avail_in;
    inflateEnd(&z);
    if (zr != Z_STREAM_END || out_len != us || in_left != 0)
      return ts_error_set(err, TS_E_BAD_WHEEL,
                          "zip entry '%s' is corrupt, truncated, or its sizes "
                          "lie",
                          e->name);
#endif
    data = sc->out_;
  }
  rc = crc_check(e, ts_zip_crc32(0, data, us), err);
  if (rc != TS_OK)
    return rc;
  return sink(ctx, data, us, err);
}

/* The k bytes at off of a streamed member, in *piece: read in place from
 * an in-memory range, else into buf (from the file behind a mapping when
 * there is one: see struct source). */
static enum ts_code stream_piece(const struct source *s, unsigned char *buf, size_t k,
                                 uint64_t off, const unsigned char **piece,
                                 struct ts_error *err) {
  *piece = buf;
  if (s->stream_fd >= 0)
    return pread_all(s->stream_fd, buf, k, off, err);
  if (s->fd < 0 && off >= s->buf_offset && off - s->buf_offset <= s->buf_len &&
      s->buf_len - (off - s->buf_offset) >= k) {
    *piece = s->buf + (off - s->buf_offset);
    return TS_OK;
  }
  return src_read(s, buf, k, off, err);
}

static enum ts_code extract_stream(const struct source *s,
                                   const struct ts_zip_entry *e,
                                   uint64_t data_off,
                                   struct ts_zip_scratch *sc,
                                   ts_zip_sink_fn *sink, void *ctx,
                                   struct ts_error *err) {
  grow(&sc->in_, &sc->in_alloc_, STREAM_CHUNK);
  grow(&sc->out_, &sc->out_alloc_, STREAM_CHUNK);
  enum ts_code rc = TS_OK;
  uint64_t in_left = e->csize, out_total = 0;
  uint32_t crc = 0;
  uint64_t off = data_off;
  if (e->method == TS_ZIP_STORED) {
    while (in_left) {
      size_t k = in_left < STREAM_CHUNK ? (size_t)in_left : STREAM_CHUNK;
      const unsigned char *piece;
      rc = stream_piece(s, sc->in_, k, off, &piece, err);
      if (rc != TS_OK)
        return rc;
      crc = ts_zip_crc32(crc, piece, k);
      rc = sink(ctx, piece, k, err);
      if (rc != TS_OK)
        return rc;
      off += k;
      in_left -= k;
    }
    return crc_check(e, crc, err);
  }
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -15) != Z_OK)
    return ts_error_set(err, TS_E_NOMEM, "out of memory for inflate");
  int zr = Z_OK;
  while (zr != Z_STREAM_END) {
    if (z.avail_in == 0) {
      if (in_left == 0) {
        rc = ts_error_set(err, TS_E_BAD_WHEEL,
                          "zip entry '%s' is truncated or its compressed size "
                          "lies",
                          e->name);
        goto out;
      }
      size_t k = in_left < STREAM_CHUNK ? (size_t)in_left : STREAM_CHUNK;
      const unsigned char *next;
      if ((rc = stream_piece(s, sc->in_, k, off, &next, err)) != TS_OK)
        goto out;
      off += k;
      in_left -= k;
      z.next_in = (unsigned char *)next;
      z.avail_in = (uInt)k;
    }
    z.next_out = sc->out_;
    z.avail_out = STREAM_CHUNK;
    zr = inflate(&z, Z_NO_FLUSH);
    if (zr != Z_OK && zr != Z_STREAM_END) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry '%s' is corrupt (bad deflate data)",
                        e->name);
      goto out;
    }
    size_t got = STREAM_CHUNK - z.avail_out;
    if (got > e->usize - out_total) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "zip entry '%s' inflates to more than its declared "
                        "%llu bytes",
                        e->name, (unsigned long long)e->usize);
      goto out;
    }
    out_total += got;
    crc = ts_zip_crc32(crc, sc->out_, got);
    if (got) {
      rc = sink(ctx, sc->out_, got, err);
      if (rc != TS_OK)
        goto out;
    }
  }
  if (in_left != 0 || z.avail_in != 0 || out_total != e->usize) {
    rc = ts_error_set(err, TS_E_BAD_WHEEL,
                      "zip entry '%s' sizes lie (declared %llu -> %llu, got "
                      "%llu bytes out)",
                      e->name, (unsigned long long)e->csize,
                      (unsigned long long)e->usize,
                      (unsigned long long)out_total);
    goto out;
  }
  rc = crc_check(e, crc, err);
out:
  inflateEnd(&z);
  return rc;
}

static enum ts_code extract_from(const struct source *s,
                                 const struct ts_zip_entry *e,
                                 struct ts_zip_scratch *sc,
                                 ts_zip_sink_fn *sink, void *ctx,
                                 struct ts_error *err) {
  if (e->method != TS_ZIP_STORED && e->method != TS_ZIP_DEFLATE)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "zip entry '%s' uses compression method %u (only "
                        "stored and deflate are supported)",
                        e->name, e->method);
  uint64_t data_off;
  size_t whole = sc->whole_max ? sc->whole_max : WHOLE_DEFAULT;
  if (s->fd < 0 && e->usize <= whole) {
    /* Archive bytes already in memory (a mapping, a range response): the
     * data is inflated where it lies, nothing copied. */
    enum ts_code rc = local_data_offset(s, e, &data_off, err);
    if (rc != TS_OK)
      return rc;
    if (data_off < s->buf_offset || data_off - s->buf_offset > s->buf_len ||
        s->buf_len - (data_off - s->buf_offset) < e->csize)
      return ts_error_set(err, TS_E_INVALID,
                          "zip entry '%s' is not in the buffer given", e->name);
    return extract_whole(s, e, data_off, s->buf + (data_off - s->buf_offset),
                         sc, sink, ctx, err);
  }
  bool in_memory = e->csize <= whole && e->usize <= whole;
  if (in_memory && s->fd >= 0 && e->name_len <= NAME_ONE_READ) {
    /* One read for the local header and the data (a 12,000-file wheel
     * made 24,000 reads): the header, the name, room for a local extra
     * field, the data, never past the member's limit.  An extra field
     * longer than that room (rare) is read again the usual way. */
    uint64_t span = LFH_LEN + e->name_len + LOCAL_EXTRA_ROOM + e->csize;
    if (span > e->limit - e->local_offset)
      span = e->limit - e->local_offset;
    grow(&sc->in_, &sc->in_alloc_, (size_t)span);
    enum ts_code rc = src_read(s, sc->in_, (size_t)span, e->local_offset, err);

    if (rc != TS_OK)
      return rc;
    struct source mem = {.fd = -1, .buf = sc->in_, .buf_offset = e->local_offset,
                         .buf_len = (size_t)span, .stream_fd = -1};
    rc = local_data_offset(&mem, e, &data_off, err);
    if (rc != TS_OK)
      return rc;
    const unsigned char *input = NULL;
    if (data_off - e->local_offset + e->csize <= span)
      input = sc->in_ + (data_off - e->local_offset);
    return extract_whole(s, e, data_off, input, sc, sink, ctx, err);
  }
  enum ts_code rc = local_data_offset(s, e, &data_off, err);
  if (rc != TS_OK)
    return rc;
  if (in_memory)
    return extract_whole(s, e, data_off, NULL, sc, sink, ctx, err);
  return extract_stream(s, e, data_off, sc, sink, ctx, err);
}

void ts_zip_scratch_clear(struct ts_zip_scratch *s) {
  free(s->in_);
  free(s->out_);
#ifdef TS_HAVE_LIBDEFLATE
  if (s->inflater_)
    libdeflate_free_decompressor(s->inflater_);
#endif
  s->in_ = s->out_ = NULL;
  s->in_alloc_ = s->out_alloc_ = 0;
  s->inflater_ = NULL;
}

static struct source archive_source(const struct ts_zip_archive *a) {
  if (a->map_)
    return (struct source){.fd = -1, .buf = a->map_, .buf_len = a->map_len_,
                           .stream_fd = a->fd_};
  return (struct source){.fd = a->fd_, .stream_fd = -1};
}

enum ts_code ts_zip_extract(const struct ts_zip_archive *a,
                            const struct ts_zip_entry *e,
                            struct ts_zip_scratch *scratch,
                            ts_zip_sink_fn *sink, void *ctx,
                            struct ts_error *err) {
  if (a->fd_ < 0)
    return ts_error_set(err, TS_E_INVALID,
                        "zip archive was opened from a tail; read members "
                        "with ts_zip_read_member_buf");
  struct source s = archive_source(a);
  return extract_from(&s, e, scratch, sink, ctx, err);
}

static enum ts_code buf_sink(void *ctx, const void *data, size_t len,
                             struct ts_error *err) {
  struct ts_buf *b = ctx;
  if (ts_buf_append(b, data, len) != TS_OK)
    return ts_error_set(err, TS_E_TOO_BIG,
                        "zip member is larger than the %zu-byte limit",
                        b->max);
  return TS_OK;
}

static enum ts_code read_member(const struct source *s,
                                const struct ts_zip_entry *e,
                                struct ts_buf *out, struct ts_error *err) {
  if (out->max && e->usize > out->max)
    return ts_error_set(err, TS_E_TOO_BIG,
                        "zip member '%s' is %llu bytes (limit %zu)", e->name,
                        (unsigned long long)e->usize, out->max);
  struct ts_zip_scratch sc = {.whole_max = WHOLE_READ_MEMBER};
  enum ts_code rc = extract_from(s, e, &sc, buf_sink, out, err);
  ts_zip_scratch_clear(&sc);
  if (rc == TS_OK && !out->data)
    rc = ts_buf_append(out, "", 0);
  return rc;
}

enum ts_code ts_zip_read_member(const struct ts_zip_archive *a,
                                const struct ts_zip_entry *e,
                                struct ts_buf *out, struct ts_error *err) {
  if (a->fd_ < 0)
    return ts_error_set(err, TS_E_INVALID,
                        "zip archive was opened from a tail; read members "
                        "with ts_zip_read_member_buf");
  struct source s = archive_source(a);
  return read_member(&s, e, out, err);
}

enum ts_code ts_zip_read_member_buf(const struct ts_zip_entry *e,
                                    const void *buf, size_t len,
                                    uint64_t buf_offset, struct ts_buf *out,
                                    struct ts_error *err) {
  struct source s = {.fd = -1, .buf = buf, .buf_offset = buf_offset,
                     .buf_len = len, .stream_fd = -1};
  return read_member(&s, e, out, err);
}
