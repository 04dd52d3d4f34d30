/* index/page_file.c — see page_file.h. */
#include "index/page_file.h"

#include <stdbool.h>
#include <string.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/fs.h"
#include "index/simple.h"

static bool is_json_file(const char *path) {
  size_t l = strlen(path);
  return l > 5 && strcmp(path + l - 5, ".json") == 0;
}

enum ts_code ts_index_parse_page_file(const char *path, const char *page_url, long repeat,
                                      struct ts_index_page_parse *acc, struct ts_error *err) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_INDEX_PAGE);
  enum ts_code c = ts_fs_read_file(path, &b, err);
  bool json = is_json_file(path);
  const char *url = page_url ? page_url : "https://example.invalid/simple/p/";
  for (long r = 0; !c && r < (repeat > 0 ? repeat : 1); r++) {
    struct ts_index_project p;
    double t0 = ts_now_ms();
    c = json ? ts_index_parse_json(b.data, b.len, url, "p", &p, err)
             : ts_index_parse_html(b.data, b.len, url, "p", &p, err);
    acc->seconds += (ts_now_ms() - t0) / 1e3;
    if (c)
      break;
    acc->bytes += b.len;
    acc->files += p.nfiles;
    acc->nfiles = p.nfiles;
    ts_index_project_clear(&p);
  }
  ts_buf_clear(&b);
  return c;
}
