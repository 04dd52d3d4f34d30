#include "wheel/txn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "core/vec.h"

#define JOURNAL_MAGIC "torchsolve-txn 1\n"
#define TS_CAP_JOURNAL (512u * 1024 * 1024)

void ts_txn_add(struct ts_txn *t, char kind, const char *src, const char *dst) {
  t->ops = ts_vec_grow(t->ops, &t->aops, t->nops + 1, sizeof *t->ops);

  t->ops[t->nops++] = (struct ts_txn_op){kind, ts_xstrdup(src),
                                         dst ? ts_xstrdup(dst) : NULL};
}

char *ts_txn_old_path(struct ts_txn *t) {
  char name[32];
  snprintf(name, sizeof name, "%zu", t->nold++);
  return ts_path_join(t->old_dir, name);
}

static void free_ops(struct ts_txn *t) {
  for (size_t i = 0; i < t->nops; i++) {
    free(t->ops[i].src);
    free(t->ops[i].dst);
  }
  free(t->ops);
  t->ops = NULL;
  t->nops = t->aops = 0;
}

static bool lexists(const char *p) {
  struct stat st;
  return lstat(p, &st) == 0;
}

/* ---- journal text: one op per line, fields separated by TAB, with '\\',
 * TAB and newline escaped (old RECORDs may name anything). */

static enum ts_code put_escaped(struct ts_buf *b, const char *s) {
  enum ts_code rc = TS_OK;
  for (; rc == TS_OK && *s; s++) {
    if (*s == '\\')
      rc = ts_buf_append(b, "\\\\", 2);
    else if (*s == '\t')
      rc = ts_buf_append(b, "\\t", 2);
    else if (*s == '\n')
      rc = ts_buf_append(b, "\\n", 2);
    else
      rc = ts_buf_append(b, s, 1);
  }
  return rc;
}

static char *unescape(const char *s, size_t n) {
  char *o = ts_xmalloc(n + 1), *q = o;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' && i + 1 < n) {
      i++;
      *q++ = s[i] == 't' ? '\t' : s[i] == 'n' ? '\n' : s[i];
    } else {
      *q++ = s[i];
    }
  }
  *q = '\0';
  return o;
}

static enum ts_code parse_journal(struct ts_txn *t, const char *d, size_t len,
                                  struct ts_error *err) {
  size_t ml = strlen(JOURNAL_MAGIC);
  if (len < ml || memcmp(d, JOURNAL_MAGIC, ml) != 0)
    return ts_error_set(err, TS_E_IO,
                        "'%s/journal' is not a torchsolve journal", t->dir);
  const char *p = d + ml, *end = d + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) /* cannot happen: the journal is renamed into place whole */
      return ts_error_set(err, TS_E_IO, "'%s/journal' is truncated", t->dir);
    const char *tab1 = memchr(p, '\t', (size_t)(nl - p));
    if (!tab1 || tab1 != p + 1)
      return ts_error_set(err, TS_E_IO, "'%s/journal' is malformed", t->dir);
    const char *tab2 = memchr(tab1 + 1, '\t', (size_t)(nl - tab1 - 1));
    char *src = unescape(tab1 + 1, (size_t)((tab2 ? tab2 : nl) - tab1 - 1));
    char *dst = tab2 ? unescape(tab2 + 1, (size_t)(nl - tab2 - 1)) : NULL;
    ts_txn_add(t, p[0], src, dst);
    free(src);
    free(dst);
    p = nl + 1;
  }
  return TS_OK;
}

/* Replays ops; each is idempotent so a run killed halfway through replay
 * is replayed again. */
static enum ts_code replay(struct ts_txn *t, struct ts_error *err) {
  for (size_t i = 0; i < t->nops; i++) {
    struct ts_txn_op *o = &t->ops[i];
    if (o->kind == TS_TXN_BACKUP) {
      if (lexists(o->src) && !lexists(o->dst) && rename(o->src, o->dst) != 0)
        return ts_error_set(err, TS_E_IO, "cannot move '%s' aside: %s", o->src,
                            strerror(errno));
    } else if (o->kind == TS_TXN_MOVE) {
      if (lexists(o->src) && rename(o->src, o->dst) != 0)
        return ts_error_set(err, TS_E_IO, "cannot move '%s' into place: %s",
                            o->dst, strerror(errno));
    }
  }
  for (size_t i = 0; i < t->nops; i++)
    if (t->ops[i].kind == TS_TXN_PRUNE)
      rmdir(t->ops[i].src); /* fails harmlessly when not empty */
  return TS_OK;
}

static enum ts_code finish(struct ts_txn *t, struct ts_error *err) {
  enum ts_code rc = replay(t, err);
  if (rc != TS_OK)
    return rc;
  char *j = ts_path_join(t->dir, "journal");
  unlink(j);
  free(j);
  return ts_fs_remove_tree(t->dir, err);
}

static enum ts_code recover(struct ts_txn *t, const struct ts_wheel_callbacks *cb,
                            bool *repaired, struct ts_error *err) {
  if (!lexists(t->dir))
    return TS_OK;
  char *j = ts_path_join(t->dir, "journal");
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_JOURNAL);
  enum ts_code rc = ts_fs_read_file(j, &b, err);
  free(j);
  if (rc == TS_E_NOT_FOUND) {
    ts_buf_clear(&b);
    rc = ts_fs_remove_tree(t->dir, err);
    if (rc == TS_OK && cb && cb->repaired)
      cb->repaired(cb->ctx, "rolled back an interrupted transaction");
    if (repaired)
      *repaired = true;
    return rc;
  }
  if (rc == TS_OK)
    rc = parse_journal(t, b.data, b.len, err);
  ts_buf_clear(&b);
  if (rc == TS_OK)
    rc = finish(t, err);
  free_ops(t);
  t->nold = 0;
  if (rc == TS_OK && cb && cb->repaired)
    cb->repaired(cb->ctx, "completed an interrupted transaction");
  if (repaired)
    *repaired = true;
  return rc;
}

/* Takes the flock on fd as `how` says; the lock file's path is for
 * messages. */
static enum ts_code take_lock(int fd, const char *lock, const char *env,
                              enum ts_txn_locking how,
                              const struct ts_wheel_callbacks *cb,
                              struct ts_error *err) {
  if (flock(fd, LOCK_EX | LOCK_NB) == 0)
    return TS_OK;
  if (errno != EWOULDBLOCK)
    return ts_error_set(err, TS_E_IO, "cannot lock '%s': %s", lock,
                        strerror(errno));
  if (how == TS_TXN_LOCK_NO_WAIT)
    return ts_error_set(err, TS_E_BUSY,
                        "another torchsolve is changing %s (it holds %s); "
                        "run again without --no-wait to wait for it",
                        env, lock);
  if (cb && cb->waiting_for_lock)
    cb->waiting_for_lock(cb->ctx, env);
  while (flock(fd, LOCK_EX) != 0)
    if (errno != EINTR)
      return ts_error_set(err, TS_E_IO, "cannot lock '%s': %s", lock,
                          strerror(errno));
  return TS_OK;
}

/* The lock lives outside what gets shipped: at a venv's root (uv's .lock
 * is there), else (--target, --prefix, a system interpreter) in the
 * temporary folder under a digest of site-packages, as uv does. */
static char *lock_path(const char *purelib, const char *env) {
  char *cfg = env ? ts_path_join(env, "pyvenv.cfg") : NULL;
  bool venv = cfg && access(cfg, F_OK) == 0;
  free(cfg);
  if (venv)
    return ts_path_join(env, ".torchsolve.lock");
  char *real = realpath(purelib, NULL);
  const char *key = real ? real : purelib;
  uint8_t dig[TS_SHA256_LEN];
  char hex[2 * TS_SHA256_LEN + 1];
  ts_sha256(key, strlen(key), dig);
  ts_sha256_hex(dig, hex);
  free(real);
  return ts_xasprintf("%s/torchsolve-env-%.16s.lock", ts_fs_temp_dir(), hex);
}

/* Earlier versions locked <purelib>/.torchsolve.lock, which then shipped
 * with every image: an empty one is ours, dropped under the new lock. */
static void drop_stale_lock(const char *purelib) {
  char *old = ts_path_join(purelib, ".torchsolve.lock");
  struct stat st;
  if (lstat(old, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
    unlink(old);
  free(old);
}

enum ts_code ts_txn_open(struct ts_txn *t, const char *purelib, const char *env,
                         enum ts_txn_locking how,
                         const struct ts_wheel_callbacks *cb, bool *repaired,
                         struct ts_error *err) {
  memset(t, 0, sizeof *t);
  t->lock_fd = -1;
  if (repaired)
    *repaired = false;
  struct stat st;
  if (stat(purelib, &st) != 0 || !S_ISDIR(st.st_mode))
    return ts_error_set(err, TS_E_PYTHON,
                        "site-packages '%s' does not exist", purelib);
  if (how != TS_TXN_LOCK_HELD) {
    char *lock = lock_path(purelib, env);
    t->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    enum ts_code rc =
        t->lock_fd < 0
            ? ts_error_set(err, TS_E_IO, "cannot open '%s': %s", lock, strerror(errno))
            : take_lock(t->lock_fd, lock, env ? env : purelib, how, cb, err);
    free(lock);
    if (rc != TS_OK) {
      if (t->lock_fd >= 0)
        close(t->lock_fd);
      t->lock_fd = -1;
      return rc;
    }
    drop_stale_lock(purelib);
  }
  t->dir = ts_path_join(purelib, ".torchsolve-txn");
  t->old_dir = ts_path_join(t->dir, "old");
  enum ts_code rc = recover(t, cb, repaired, err);
  if (rc != TS_OK) {
    ts_error_wrap(err, "repairing an interrupted transaction");
    ts_txn_end(t);
  }
  return rc;
}

enum ts_code ts_txn_begin(struct ts_txn *t, struct ts_error *err) {
  if (mkdir(t->dir, 0755) != 0)
    return ts_error_set(err, TS_E_IO, "cannot create '%s': %s", t->dir,
                        strerror(errno));
  /* The staged trees are renamed into site-packages and keep their block
   * groups: spread them for the same reason as the wheel cache.  The
   * stage's name is random because the Orlov allocator breaks ties
   * between equally empty groups by a hash of the name: under a fixed
   * name, an install made seconds after the last one was deleted landed
   * in that one's groups, and each file create scanned its freed inodes
   * (a torch install: 2.3-4.2 s of kernel time, against 0.3-0.4 s). */
  ts_fs_spread_subdirs(t->dir);
  t->new_dir = ts_path_join(t->dir, "new-XXXXXX");
  if (!mkdtemp(t->new_dir) || mkdir(t->old_dir, 0755) != 0)
    return ts_error_set(err, TS_E_IO, "cannot create a stage in '%s': %s", t->dir,
                        strerror(errno));
  return TS_OK;
}

enum ts_code ts_txn_commit(struct ts_txn *t, struct ts_error *err) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_JOURNAL);
  enum ts_code rc = ts_buf_append_str(&b, JOURNAL_MAGIC);
  for (size_t i = 0; rc == TS_OK && i < t->nops; i++) {
    struct ts_txn_op *o = &t->ops[i];
    char k[3] = {o->kind, '\t', '\0'};
    rc = ts_buf_append_str(&b, k);
    if (rc == TS_OK)
      rc = put_escaped(&b, o->src);
    if (rc == TS_OK && o->dst) {
      rc = ts_buf_append(&b, "\t", 1);
      if (rc == TS_OK)
        rc = put_escaped(&b, o->dst);
    }
    if (rc == TS_OK)
      rc = ts_buf_append(&b, "\n", 1);
  }
  if (rc != TS_OK) {
    ts_buf_clear(&b);
    return ts_error_set(err, rc, "transaction journal is too large");
  }
  char *j = ts_path_join(t->dir, "journal");
  rc = ts_fs_write_atomic(j, b.data, b.len, err);
  free(j);
  ts_buf_clear(&b);
  if (rc != TS_OK)
    return rc;
  /* Past the commit point: a failure from here on is finished by the next
   * run's recovery. */
  rc = finish(t, err);
  if (rc != TS_OK)
    ts_error_wrap(err, "the next torchsolve run will complete this "
                       "transaction");
  return rc;
}

void ts_txn_end(struct ts_txn *t) {
  if (t->dir && lexists(t->dir)) {
    char *j = ts_path_join(t->dir, "journal");
    if (!lexists(j))
      ts_fs_remove_tree(t->dir, NULL);
    free(j);
  }
  free_ops(t);
  free(t->dir);
  free(t->new_dir);
  free(t->old_dir);
  if (t->lock_fd >= 0)
    close(t->lock_fd); /* releases the flock */
  memset(t, 0, sizeof *t);
  t->lock_fd = -1;
}
