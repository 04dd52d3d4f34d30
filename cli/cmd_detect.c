/*
 * torchsolve detect [--json] [--release X.Y] [--python PATH [--probe]]
 * [GPU options] — what GPU stack this machine has, each fact with its
 * source, the torch variants it may use, best first, and an interpreter's
 * target as torchsolve reads it.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/rules_cli.h"
#include "rules/series.h"
#include "target/target.h"

static void usage(FILE *out) {
  fputs("usage: torchsolve detect [--json] [--release X.Y] [--python PATH [--probe]]\n"
        "                        [GPU options]\n\n"
        "Reports the NVIDIA driver and the CUDA it runs, each GPU's compute\n"
        "capability, AMD gfx targets and the installed ROCm, Intel XPU, glibc\n"
        "and OS, each with where it was read, and the torch variants (best\n"
        "first) that the newest torch in rules.yaml may use here.\n\n"
        "  --json           one JSON object on stdout (with variant_properties:\n"
        "                   the PEP 825 properties this host supports)\n"
        "  --release X.Y    list the variants of that torch series instead (one\n"
        "                   newer than the rules is judged on the newest listed\n"
        "                   release's facts, with a warning)\n"
        "  --python PATH    also show that interpreter or venv as install sees it\n"
        "                   (JSON \"python\": tags, paths, source \"files\" or \"probe\")\n"
        "  --probe          run it even when its venv files answer (to compare)\n\n",
        out);
  ts_gpu_options_help(out);
}

static cJSON *str_or_null(const char *s) {
  return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *usable_names(const struct ts_constraint_set *s) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < s->nbackends; i++)
    if (s->backends[i].usable)
      cJSON_AddItemToArray(a, cJSON_CreateString(s->backends[i].name));
  return a;
}

static int print_json(const struct ts_host *h, const struct ts_constraint_set *s,
                      const struct ts_constraint_set *fb, const struct ts_rules *rules,
                      const struct ts_target *t) {
  cJSON *o = cJSON_CreateObject();
  if (t)
    cJSON_AddItemToObject(o, "python", ts_target_to_json(t));
  cJSON_AddItemToObject(o, "rules", ts_cli_rules_in_force_json(rules));
  cJSON_AddItemToObject(o, "machine", str_or_null(h->machine));
  cJSON_AddItemToObject(o, "jetson", str_or_null(h->jetson));
  cJSON *os = cJSON_AddObjectToObject(o, "os");
  cJSON_AddItemToObject(os, "name", str_or_null(h->os_pretty));
  cJSON_AddItemToObject(os, "id", str_or_null(h->os_id));
  cJSON_AddItemToObject(os, "version", str_or_null(h->os_version));
  cJSON_AddItemToObject(os, "kernel", str_or_null(h->kernel));
  cJSON_AddBoolToObject(o, "wsl", h->wsl);
  cJSON_AddItemToObject(o, "glibc", str_or_null(h->glibc));
  if (h->has_cuda) {
    cJSON *c = cJSON_AddObjectToObject(o, "cuda");
    cJSON_AddItemToObject(c, "driver_version", str_or_null(h->cuda_driver));
    cJSON_AddItemToObject(c, "cuda_version", str_or_null(h->cuda_version));
    cJSON *g = cJSON_AddArrayToObject(c, "gpus");
    for (size_t i = 0; i < h->ncuda_gpus; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddItemToObject(e, "name", str_or_null(h->cuda_gpus[i].name));
      cJSON_AddItemToObject(e, "compute_capability",
                            str_or_null(h->cuda_gpus[i].compute_capability));
      cJSON_AddItemToArray(g, e);
    }
  } else {
    cJSON_AddNullToObject(o, "cuda");
  }
  if (h->has_rocm) {
    cJSON *r = cJSON_AddObjectToObject(o, "rocm");
    cJSON_AddItemToObject(r, "version", str_or_null(h->rocm_version));
    cJSON *g = cJSON_AddArrayToObject(r, "gpus");
    for (size_t i = 0; i < h->nrocm_gpus; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "gfx", h->rocm_gpus[i].gfx);
      if (h->rocm_gpus[i].real_gfx)
        cJSON_AddStringToObject(e, "real_gfx", h->rocm_gpus[i].real_gfx);
      cJSON_AddItemToArray(g, e);
    }
    cJSON_AddItemToObject(r, "hsa_override_gfx_version",
                          str_or_null(h->hsa_override));
    cJSON_AddItemToObject(r, "amdgpu_version", str_or_null(h->amdgpu_version));
    const char *kr;
    char basis[512];
    if (ts_cli_kernel_driver(s, rules, h, &kr, basis, sizeof basis)) {
      cJSON *k = cJSON_AddObjectToObject(r, "kernel_driver");
      cJSON_AddItemToObject(k, "rocm", str_or_null(kr));
      cJSON_AddStringToObject(k, "basis", basis);
    } else {
      cJSON_AddNullToObject(r, "kernel_driver");
    }
  } else {
    cJSON_AddNullToObject(o, "rocm");
  }
  cJSON_AddBoolToObject(o, "xpu", h->xpu);
  struct ts_error verr = {0}; /* PEP 825: what a variant provider would report */
  cJSON_AddItemToObject(o, "variant_properties", ts_gpu_variant_properties_json(h, &verr));
  cJSON_AddItemToObject(o, "torch_release", str_or_null(s->release));
  cJSON_AddItemToObject(o, "torch_release_assumed", str_or_null(s->release_assumed));
  cJSON_AddItemToObject(o, "backends", usable_names(s));
  cJSON *ex = cJSON_AddArrayToObject(o, "excluded");
  cJSON *notes = cJSON_AddArrayToObject(o, "notes");
  for (size_t i = 0; i < s->nbackends; i++) {
    const struct ts_backend_choice *b = &s->backends[i];
    if (!b->reason)
      continue;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "backend", b->name);
    cJSON_AddStringToObject(e, "reason", b->reason);
    if (b->rule_id)
      cJSON_AddStringToObject(e, "rule", b->rule_id);
    cJSON_AddItemToArray(b->usable ? notes : ex, e);
  }
  if (fb && fb->release) {
    cJSON *f = cJSON_AddObjectToObject(o, "gpu_fallback");
    cJSON_AddStringToObject(f, "torch_release", fb->release);
    cJSON_AddItemToObject(f, "backends", usable_names(fb));
  } else {
    cJSON_AddNullToObject(o, "gpu_fallback");
  }
  cJSON *src = cJSON_AddObjectToObject(o, "sources");
  for (size_t i = 0; i < h->nsources; i++) {
    /* The last source of a fact wins (an override after detection). */
    cJSON_DeleteItemFromObjectCaseSensitive(src, h->sources[i].fact);
    cJSON_AddStringToObject(src, h->sources[i].fact, h->sources[i].source);
  }
  char *text = cJSON_Print(o);
  cJSON_Delete(o);
  if (!text)
    return 1;
  puts(text);
  free(text);
  return 0;
}

static const char *src(const struct ts_host *h, const char *fact) {
  const char *s = ts_host_source_of(h, fact);
  return s ? s : "?";
}

static void print_text(const struct ts_host *h, const struct ts_constraint_set *s,
                       const struct ts_constraint_set *fb, const struct ts_rules *rules) {
  printf("machine   %s (%s)%s%s%s%s%s\n", h->machine ? h->machine : "unknown", src(h, "machine"),
         h->jetson ? ", NVIDIA Jetson " : "", h->jetson ? h->jetson : "",
         h->jetson ? " (not server-class aarch64; from " : "", h->jetson ? src(h, "jetson") : "",
         h->jetson ? ")" : "");
  printf("os        %s%s%s\n", h->os_pretty ? h->os_pretty : "linux",
         h->kernel ? ", kernel " : "", h->kernel ? h->kernel : "");
  if (h->wsl)
    printf("wsl       yes (%s)\n", src(h, "wsl"));
  printf("glibc     %s (%s)\n", h->glibc ? h->glibc : "none", src(h, "glibc"));
  if (h->has_cuda) {
    printf("nvidia    driver %s (%s)\n", h->cuda_driver ? h->cuda_driver : "unknown",
           src(h, "cuda.driver_version"));
    printf("cuda      %s (%s)\n", h->cuda_version ? h->cuda_version : "unknown",
           src(h, "cuda.cuda_version"));
    for (size_t i = 0; i < h->ncuda_gpus; i++)
      printf("  gpu %zu   %s, compute capability %s (%s)\n", i,
             h->cuda_gpus[i].name ? h->cuda_gpus[i].name : "NVIDIA GPU",
             h->cuda_gpus[i].compute_capability ? h->cuda_gpus[i].compute_capability
                                                : "unknown",
             src(h, "cuda.gpus"));
  } else {
    printf("nvidia    none\n");
  }
  if (h->has_rocm) {
    printf("rocm      %s (%s)\n", h->rocm_version ? h->rocm_version : "not installed",
           h->rocm_version ? src(h, "rocm.version") : "no .info/version");
    for (size_t i = 0; i < h->nrocm_gpus; i++)
      printf("  gpu %zu   %s%s%s%s (%s)\n", i, h->rocm_gpus[i].gfx,
             h->rocm_gpus[i].real_gfx ? " (really " : "",
             h->rocm_gpus[i].real_gfx ? h->rocm_gpus[i].real_gfx : "",
             h->rocm_gpus[i].real_gfx ? ")" : "", src(h, "rocm.gpus"));
    if (h->hsa_override)
      printf("  HSA_OVERRIDE_GFX_VERSION=%s\n", h->hsa_override);
    const char *kr;
    char basis[512];
    if (ts_cli_kernel_driver(s, rules, h, &kr, basis, sizeof basis))
      printf(kr ? "  kernel driver of ROCm %s (%s)\n" : "  kernel driver: %s%s\n",
             kr ? kr : "", basis);
  } else {
    printf("amd       none\n");
  }
  printf("xpu       %s%s%s%s\n", h->xpu ? "yes" : "no", h->xpu ? " (" : "",
         h->xpu ? src(h, "xpu") : "", h->xpu ? ")" : "");
  char *in_force = ts_cli_rules_in_force(rules);
  printf("rules     %s\n", in_force);
  free(in_force);
  printf("\ntorch %s may use:", s->release ? s->release : "?");
  for (size_t i = 0; i < s->nbackends; i++)
    if (s->backends[i].usable)
      printf(" %s", s->backends[i].name);
  putchar('\n');
  for (size_t i = 0; i < s->nbackends; i++)
    if (s->backends[i].reason)
      printf("  %-10s %s%s\n", s->backends[i].name,
             s->backends[i].usable ? "note: " : "excluded: ",
             s->backends[i].reason);
  if (fb && fb->release) {
    printf("newest torch with a GPU build for this host: %s (", fb->release);
    bool first = true;
    for (size_t i = 0; i < fb->nbackends; i++)
      if (fb->backends[i].usable && strcmp(fb->backends[i].kind, "cpu") != 0) {
        printf("%s%s", first ? "" : " ", fb->backends[i].name);
        first = false;
      }
    printf(")\n");
  }
}

int ts_cmd_detect(int argc, char **argv) {
  struct ts_gpu_options g;
  ts_gpu_options_init(&g);
  bool json = false, probe = false;
  const char *release = NULL, *python = NULL;
  for (int i = 1; i < argc; i++) {
    int used = ts_cli_parse_global("detect", argc, argv, &i);
    if (used == 0)
      used = ts_gpu_options_parse(&g, "detect", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    }
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else if (strcmp(argv[i], "--probe") == 0)
      probe = true;
    else if ((used = ts_cli_flag_value("--python", argc, argv, &i, &python)) != 0) {
      if (used < 0)
        return ts_cli_usage_error("detect", "--python needs a value");
    }
    else if (strcmp(argv[i], "--release") == 0 && i + 1 < argc)
      release = argv[++i];
    else if (strncmp(argv[i], "--release=", 10) == 0)
      release = argv[i] + 10;
    else
      return ts_cli_usage_error("detect", "unknown argument '%s'", argv[i]);
  }
  if (ts_gpu_options_env(&g) < 0)
    return 2;
  if (probe && !python)
    return ts_cli_usage_error("detect", "--probe needs --python PATH");
  struct ts_error err = {0};
  struct ts_target *t = NULL;
  if (python && ts_target_open_python(python, probe, NULL, &t, &err) != TS_OK)
    return ts_cli_report(&err);
  struct ts_host h;
  struct ts_rules *rules = NULL;
  if (ts_gpu_load(&g, &h, &rules, &err) != TS_OK) {
    ts_target_free(t);
    return ts_cli_report(&err);
  }
  struct ts_rules_options ro = {.ignore_host = g.ignore_host, .release = release};
  struct ts_constraint_set set, fb = {0};
  int status = 0;
  if (ts_rules_compile(rules, &h, &ro, &set, &err) != TS_OK) {
    status = ts_cli_report(&err);
    goto out;
  }
  /* a GPU and no GPU build of the newest torch: the newest series with one,
   * found as install finds the builds it routes (rules/series.h) */
  if ((h.has_cuda || h.has_rocm || h.xpu) && !h.force_cpu && !release &&
      !ts_rules_has_gpu_backend(&set))
    ts_rules_newest_gpu_series(rules, &h, g.ignore_host, &set, &fb);
  if (set.release_assumed)
    ts_cli_warn("%s", set.release_assumed);
  if (json) {
    status = print_json(&h, &set, &fb, rules, t);
  } else {
    char *line = t ? ts_target_summary(t) : NULL;
    if (line)
      printf("python    %s\n", line);
    free(line);
    print_text(&h, &set, &fb, rules);
  }
  ts_constraint_set_clear(&set);
  ts_constraint_set_clear(&fb);
out:
  ts_target_free(t);
  ts_rules_free(rules);
  ts_host_clear(&h);
  return status;
}
