/* Download progress and transaction notes: see progress.h. */
#include "cli/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/alloc.h"

static void human(uint64_t b, char *out, size_t cap) {
  if (b >= 1u << 20)
    snprintf(out, cap, "%.1f MiB", (double)b / (1u << 20));
  else if (b >= 1024)
    snprintf(out, cap, "%.1f KiB", (double)b / 1024);
  else
    snprintf(out, cap, "%llu B", (unsigned long long)b);
}

static void bar_line(const char *label, uint64_t done, uint64_t total) {
  char d[32], t[32], fill[31];
  const int width = 30;
  int k = total ? (int)((double)done / (double)total * width) : 0;
  if (k > width)
    k = width;
  for (int i = 0; i < width; i++)
    fill[i] = i < k ? '#' : '-';
  fill[width] = '\0';
  human(done, d, sizeof d);
  human(total, t, sizeof t);
  fprintf(stderr, "\r\033[K%-40.40s [%s] %s/%s\n", label, fill, d, total ? t : "?");
}

static void bars_draw(struct ts_cli_progress *b, bool force) {
  double t = ts_now_ms();
  if (!force && t - b->last < 80)
    return;
  b->last = t;
  if (b->drawn)
    fprintf(stderr, "\033[%zuA", b->drawn);
  uint64_t sd = 0, st = 0;
  size_t shown = 0;
  for (size_t i = 0; i < b->n; i++) {
    sd += b->done[i];
    st += b->total[i];
    if (b->done[i] < b->total[i] || b->total[i] == 0) {
      bar_line(b->names[i], b->done[i], b->total[i]);
      shown++;
    }
  }
  char label[64];
  snprintf(label, sizeof label, "Downloading %zu %s", b->n, b->noun);
  bar_line(label, sd, st);
  shown++;
  for (size_t i = shown; i < b->drawn; i++)
    fprintf(stderr, "\r\033[K\n");
  if (b->drawn > shown)
    fprintf(stderr, "\033[%zuA", b->drawn - shown);
  b->drawn = shown;
  fflush(stderr);
}

static void on_begin(void *ctx, const char *const *names, const uint64_t *sizes,
                     size_t n) {
  struct ts_cli_progress *b = ctx;
  if (!b->on)
    return;
  b->names = names;
  b->n = n;
  b->done = ts_xcalloc(n, sizeof *b->done);
  b->total = ts_xcalloc(n, sizeof *b->total);
  for (size_t i = 0; i < n; i++)
    b->total[i] = sizes[i];
  bars_draw(b, true);
}

static void on_progress(void *ctx, size_t i, uint64_t done, uint64_t total) {
  struct ts_cli_progress *b = ctx;
  if (!b->on || i >= b->n)
    return;
  b->done[i] = done;
  if (total)
    b->total[i] = total;
  bars_draw(b, false);
}

static void on_end(void *ctx) {
  struct ts_cli_progress *b = ctx;
  if (!b->on)
    return;
  for (size_t i = 0; i < b->n; i++)
    if (b->total[i] && b->done[i] < b->total[i])
      b->done[i] = b->total[i];
  bars_draw(b, true);
  free(b->done);
  free(b->total);
  b->done = b->total = NULL;
}

void ts_cli_progress_init(struct ts_cli_progress *p, const char *noun) {
  *p = (struct ts_cli_progress){.on = ts_cli.verbosity >= 0 && isatty(STDERR_FILENO),
                                .noun = noun};
}

struct ts_plan_callbacks ts_cli_progress_callbacks(struct ts_cli_progress *p) {
  return (struct ts_plan_callbacks){
      .ctx = p, .download_begin = on_begin, .download_progress = on_progress,
      .download_end = on_end,
      .wheel = ts_cli_env_callbacks()};
}
