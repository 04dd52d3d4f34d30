/*
 * wheel/txn.h — the environment's lock and rename journal (internal).
 *
 * A transaction lives in <dir> = <purelib>/.torchsolve-txn: new/ holds the
 * staged files, old/ receives what the transaction replaces or removes, and
 * `journal` lists the renames to carry out.  The journal is written
 * atomically once staging is complete; its presence is the commit point:
 *   no journal -> the next run deletes <dir> (the environment is as before);
 *   journal    -> the next run replays it (every op is idempotent), prunes
 *                 emptied directories and deletes <dir>.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "wheel/wheel.h"

enum ts_txn_op_kind {
  TS_TXN_BACKUP = 'B', /* src (in the env) -> dst (in old/): if src exists and
                          dst does not */
  TS_TXN_MOVE = 'M',   /* src (in new/) -> dst (in the env): if src exists */
  TS_TXN_PRUNE = 'P',  /* rmdir src if empty */
};

struct ts_txn_op {
  char kind;
  char *src;
  char *dst;
};

struct ts_txn {
  char *dir;
  char *new_dir;
  char *old_dir;
  int lock_fd;
  struct ts_txn_op *ops;
  size_t nops, aops;
  size_t nold;
};

/* How ts_txn_open treats the environment's lock. */
enum ts_txn_locking {
  TS_TXN_LOCK_WAIT,    /* take it, waiting for another process */
  TS_TXN_LOCK_NO_WAIT, /* take it, or TS_E_BUSY when another process has it */
  TS_TXN_LOCK_HELD,    /* the caller holds it already (ts_wheel_lock_env):
                          flock(2) locks belong to one open file, so taking
                          it again from this process would wait forever */
};

/* Locks the environment `env` (its sys.prefix, for messages) with flock on
 * its lock file as `how` says (<env>/.torchsolve.lock for a venv, else
 * $TMPDIR/torchsolve-env-<digest of purelib>.lock: never in what is
 * shipped; an empty <purelib>/.torchsolve.lock of an earlier version is
 * removed once locked), calling cb->waiting_for_lock
 * when another process holds it, then repairs an interrupted transaction
 * (cb->repaired).  On success t is ready for ts_txn_begin; release with
 * ts_txn_end (which unlocks unless the lock was HELD). */
enum ts_code ts_txn_open(struct ts_txn *t, const char *purelib, const char *env,
                         enum ts_txn_locking how,
                         const struct ts_wheel_callbacks *cb, bool *repaired,
                         struct ts_error *err);
/* Creates the stage directories (new/, old/). */
enum ts_code ts_txn_begin(struct ts_txn *t, struct ts_error *err);
/* Adds an op (copies the strings). */
void ts_txn_add(struct ts_txn *t, char kind, const char *src, const char *dst);
/* A fresh path in old/ for a backup. Caller frees. */
char *ts_txn_old_path(struct ts_txn *t);
/* Writes the journal (the commit point), carries it out, cleans up. */
enum ts_code ts_txn_commit(struct ts_txn *t, struct ts_error *err);
/* Deletes an uncommitted stage and unlocks; frees t. */
void ts_txn_end(struct ts_txn *t);
