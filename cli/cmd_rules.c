/*
 * torchsolve rules check [FILE...] | list | compile [--json] |
 *                  audit [--dist-info DIR] [NAME==VERSION...]  [GPU options]
 *
 * check   validates rules files (default: the bundled rules.yaml) and prints
 *         every problem as FILE:LINE:COLUMN: error: MESSAGE
 * list    the rules in effect (bundled + config + --rules), one per line
 * compile the constraint set for this host, as the resolver receives it
 * audit   which rules installed distributions break on this host, with fixes
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/rules_cli.h"
#include "pep/specifier.h"
#include "rules/rules.h"

static void usage(FILE *out) {
  fputs("usage: torchsolve rules check [FILE...]\n"
        "       torchsolve rules list [GPU options]\n"
        "       torchsolve rules update [--index-url URL] [--refresh] [index options]\n"
        "       torchsolve rules compile [--json] [GPU options]\n"
        "       torchsolve rules audit [--dist-info DIR] [--built-with cuda=X.Y|rocm=X.Y]\n"
        "                              [NAME==VERSION...] [GPU options]\n\n"
        "check validates rules files (default: the bundled rules.yaml) and prints\n"
        "every problem as FILE:LINE:COLUMN; it exits 1 when there is one.\n"
        "list names the rules in force (bundled, or updated: version and source)\n"
        "and each rule.  update takes the newest torchsolve-rules package from an\n"
        "index (`torchsolve rules update --help`).\n"
        "audit reports the rules that installed distributions break on this host\n"
        "(--dist-info DIR reads NAME-VERSION.dist-info folder names in DIR);\n"
        "--built-with says what custom builds (torch 2.9.1a0+gitd38164a) were\n"
        "built with, so that they are judged like that variant.\n\n",
        out);
  ts_gpu_options_help(out);
}

static int cmd_check(int argc, char **argv) {
  int bad = 0;
  const char *deflt[] = {ts_gpu_bundled_rules_path()};
  const char **files = argc > 0 ? (const char **)argv : deflt;
  int nfiles = argc > 0 ? argc : 1;
  for (int i = 0; i < nfiles; i++) {
    struct ts_rules_diags d = {0};
    struct ts_error err = {0};
    struct ts_rules *r = NULL;
    if (ts_rules_validate_file(files[i], deflt[0], &r, &d, &err) != TS_OK) {
      ts_cli_print_rules_diags(files[i], &d);
      bad = 1;
    } else {
      size_t low = 0;
      for (size_t k = 0; k < r->nrules; k++)
        low += r->rules[k].confidence && strcmp(r->rules[k].confidence, "low") == 0;
      printf("%s: ok: %zu backends, %zu torch releases (%s to %s), %zu rules "
             "(%zu of low confidence), %zu routed projects\n",
             files[i], r->nbackends, r->nreleases,
             r->nreleases ? r->releases[0].series : "-",
             r->nreleases ? r->releases[r->nreleases - 1].series : "-",
             r->nrules, low, r->nroutes);
    }
    ts_rules_diags_clear(&d);
    ts_rules_free(r);
  }
  return bad;
}

int ts_cli_rules_load(struct ts_gpu_options *g, int argc, char **argv, const char *cmd,
                      bool *json, struct ts_rules **rules, int *first_arg) {
  ts_gpu_options_init(g);
  *first_arg = argc;
  int npos = 0;
  for (int i = 0; i < argc; i++) {
    int used = ts_cli_parse_global("rules", argc, argv, &i);
    if (used == 0)
      used = ts_gpu_options_parse(g, cmd, argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    if (json && strcmp(argv[i], "--json") == 0)
      *json = true;
    else if (argv[i][0] == '-' && strcmp(argv[i], "--dist-info") != 0 &&
             strcmp(argv[i], "--built-with") != 0)
      return ts_cli_usage_error("rules", "unknown argument '%s'", argv[i]);
    else {
      /* Positional arguments (audit) are compacted to the front. */
      argv[npos++] = argv[i];
      if (argv[i][0] == '-' && i + 1 < argc)
        argv[npos++] = argv[++i];
    }
  }
  *first_arg = npos;
  if (ts_gpu_options_env(g) < 0)
    return 2;
  struct ts_error err = {0};
  if (ts_gpu_rules(g, rules, &err) != TS_OK)
    return ts_cli_report(&err);
  return 0;
}

static const char *kind_text(enum ts_rules_kind k) {
  return k == TS_RULES_REQUIRES ? "requires"
         : k == TS_RULES_CONFLICTS ? "conflicts" : "custom-build";
}

static int cmd_list(int argc, char **argv) {
  struct ts_gpu_options g;
  struct ts_rules *r = NULL;
  int n;
  int st = ts_cli_rules_load(&g, argc, argv, "rules", NULL, &r, &n);
  if (st)
    return st;
  if (n > 0) {
    ts_rules_free(r);
    return ts_cli_usage_error("rules", "list takes no arguments");
  }
  char *in_force = ts_cli_rules_in_force(r);
  printf("rules in force: %s\n", in_force);
  free(in_force);
  for (size_t i = 0; i < r->nrules; i++) {
    const struct ts_rules_rule *x = &r->rules[i];
    printf("%-24s %-12s %-7s %s%s%s\n", x->id, kind_text(x->kind),
           x->confidence ? x->confidence : "high", x->subject_name,
           x->subject_spec ? " " : "", x->subject_spec ? x->subject_spec : "");
  }
  for (size_t i = 0; i < r->npairings; i++)
    printf("%-24s %-12s %-7s %s ↔ torch (from releases)\n", r->pairings[i].id,
           "pairing", "high", r->pairings[i].project);
  ts_rules_free(r);
  return 0;
}

static cJSON *term_json(const struct ts_term *t) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", t->name);
  if (t->spec)
    cJSON_AddStringToObject(o, "spec", ts_specset_str(t->spec));
  if (t->local_pattern)
    cJSON_AddStringToObject(o, "local", t->local_pattern);
  return o;
}

static int cmd_compile(int argc, char **argv) {
  struct ts_gpu_options g;
  struct ts_rules *r = NULL;
  bool json = false;
  int n;
  int st = ts_cli_rules_load(&g, argc, argv, "rules", &json, &r, &n);
  if (st)
    return st;
  struct ts_error err = {0};
  struct ts_host h;
  struct ts_constraint_set s;
  if (ts_gpu_host(&g, &h, &err) != TS_OK) {
    ts_rules_free(r);
    return ts_cli_report(&err);
  }
  struct ts_rules_options ro = {.ignore_host = g.ignore_host};
  if (ts_rules_compile(r, &h, &ro, &s, &err) != TS_OK) {
    ts_host_clear(&h);
    ts_rules_free(r);
    return ts_cli_report(&err);
  }
  if (json) {
    cJSON *o = cJSON_CreateObject();
    cJSON *facts = cJSON_AddArrayToObject(o, "facts");
    for (size_t i = 0; i < s.nfacts; i++) {
      cJSON *f = cJSON_CreateObject();
      cJSON_AddStringToObject(f, "name", s.facts[i].name);
      if (s.facts[i].version)
        cJSON_AddStringToObject(f, "version", s.facts[i].version);
      cJSON_AddStringToObject(f, "source", s.facts[i].source);
      cJSON_AddItemToArray(facts, f);
    }
    cJSON *cs = cJSON_AddArrayToObject(o, "constraints");
    for (size_t i = 0; i < s.nconstraints; i++) {
      const struct ts_constraint *c = &s.constraints[i];
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "id", c->id);
      cJSON_AddStringToObject(e, "kind", c->kind == TS_CONSTRAINT_REQUIRES
                                             ? "requires" : "conflicts");
      cJSON_AddItemToObject(e, "subject", term_json(&c->subject));
      cJSON *t = cJSON_AddArrayToObject(e, "terms");
      for (size_t k = 0; k < c->nterms; k++)
        cJSON_AddItemToArray(t, term_json(&c->terms[k]));
      cJSON *w = cJSON_AddArrayToObject(e, "when");
      for (size_t k = 0; k < c->nwhen; k++)
        cJSON_AddItemToArray(w, term_json(&c->when[k]));
      cJSON_AddStringToObject(e, "message", c->message);
      if (c->fix)
        cJSON_AddStringToObject(e, "fix", c->fix);
      if (c->confidence)
        cJSON_AddStringToObject(e, "confidence", c->confidence);
      cJSON_AddItemToArray(cs, e);
    }
    cJSON *b = cJSON_AddArrayToObject(o, "backends");
    for (size_t i = 0; i < s.nbackends; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "name", s.backends[i].name);
      cJSON_AddStringToObject(e, "index_url", s.backends[i].index_url);
      cJSON_AddBoolToObject(e, "usable", s.backends[i].usable);
      if (s.backends[i].reason)
        cJSON_AddStringToObject(e, "reason", s.backends[i].reason);
      cJSON_AddItemToArray(b, e);
    }
    cJSON *rt = cJSON_AddArrayToObject(o, "routed");
    for (size_t i = 0; i < s.nrouted; i++)
      cJSON_AddItemToArray(rt, cJSON_CreateString(s.routed[i]));
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    if (text)
      puts(text);
    free(text);
  } else {
    for (size_t i = 0; i < s.nfacts; i++)
      printf("fact %s%s%s  (%s)\n", s.facts[i].name, s.facts[i].version ? " = " : "",
             s.facts[i].version ? s.facts[i].version : "", s.facts[i].source);
    for (size_t i = 0; i < s.nconstraints; i++) {
      const struct ts_constraint *c = &s.constraints[i];
      printf("%s: %s%s%s%s%s %s", c->id, c->subject.name,
             c->subject.spec ? " " : "",
             c->subject.spec ? ts_specset_str(c->subject.spec) : "",
             c->subject.local_pattern ? " +" : "",
             c->subject.local_pattern ? c->subject.local_pattern : "",
             c->kind == TS_CONSTRAINT_REQUIRES ? "requires" : "conflicts with");
      for (size_t k = 0; k < c->nterms; k++)
        printf("%s %s%s%s%s%s", k ? " |" : "", c->terms[k].name,
               c->terms[k].spec ? " " : "",
               c->terms[k].spec ? ts_specset_str(c->terms[k].spec) : "",
               c->terms[k].local_pattern ? " +" : "",
               c->terms[k].local_pattern ? c->terms[k].local_pattern : "");
      for (size_t k = 0; k < c->nwhen; k++)
        printf("%s %s", k ? " and" : " when", c->when[k].name);
      putchar('\n');
    }
  }
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);
  ts_rules_free(r);
  return 0;
}

int ts_cmd_rules(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "check") == 0)
    return cmd_check(argc - 2, argv + 2);
  if (strcmp(argv[1], "list") == 0)
    return cmd_list(argc - 2, argv + 2);
  if (strcmp(argv[1], "compile") == 0)
    return cmd_compile(argc - 2, argv + 2);
  if (strcmp(argv[1], "audit") == 0)
    return ts_cmd_rules_audit(argc - 2, argv + 2);
  if (strcmp(argv[1], "update") == 0)
    return ts_cmd_rules_update(argc - 2, argv + 2);
  return ts_cli_usage_error("rules", "unknown subcommand '%s'", argv[1]);
}
