/* sync's and export's --extra/--group options: see select_options.h. */
#include "cli/select_options.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/alloc.h"

void ts_select_cli_init(struct ts_select_cli *s, int argc) {
  memset(s, 0, sizeof *s);
  s->names = ts_xcalloc(2 * (size_t)argc + 1, sizeof *s->names);
  s->request.extras = s->names;
  s->request.groups = s->names + argc;
}

int ts_select_cli_parse(struct ts_select_cli *s, const char *command, int argc, char **argv,
                        int *i) {
  struct ts_lock_request *rq = &s->request;
  const char *a = argv[*i], *v = NULL;
  const struct {
    const char *flag;
    bool *set;
  } switches[] = {{"--all-extras", &rq->all_extras},
                  {"--all-groups", &rq->all_groups},
                  {"--no-default-groups", &rq->no_default_groups}};
  for (size_t k = 0; k < sizeof switches / sizeof *switches; k++)
    if (strcmp(a, switches[k].flag) == 0) {
      *switches[k].set = true;
      return 1;
    }
  int m = ts_cli_flag_value("--extra", argc, argv, i, &v);
  if (m > 0)
    s->names[rq->nextras++] = v;
  if (m == 0 && (m = ts_cli_flag_value("--group", argc, argv, i, &v)) > 0)
    s->names[argc + rq->ngroups++] = v;
  if (m < 0) {
    ts_cli_usage_error(command, "%s needs a value",
                       strncmp(a, "--extra", 7) == 0 ? "--extra" : "--group");
    return -1;
  }
  return m;
}

void ts_select_cli_free(struct ts_select_cli *s) {
  free(s->names);
  memset(s, 0, sizeof *s);
}
