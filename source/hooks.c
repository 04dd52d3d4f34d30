/* Calling PEP 517 hooks through pep517_runner.py: see source.h. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "source/process.h"
#include "source/source.h"

static const char *const hook_names[] = {
    [TS_HOOK_GET_REQUIRES_WHEEL] = "get_requires_for_build_wheel",
    [TS_HOOK_GET_REQUIRES_EDITABLE] = "get_requires_for_build_editable",
    [TS_HOOK_PREPARE_METADATA_WHEEL] = "prepare_metadata_for_build_wheel",
    [TS_HOOK_PREPARE_METADATA_EDITABLE] = "prepare_metadata_for_build_editable",
    [TS_HOOK_BUILD_WHEEL] = "build_wheel",
    [TS_HOOK_BUILD_EDITABLE] = "build_editable",
};

void ts_hook_result_clear(struct ts_hook_result *r) {
  ts_strv_free(r->requires, r->nrequires);
  free(r->basename);
  memset(r, 0, sizeof *r);
}

/* -C KEY=VALUE pairs as the JSON object the backend gets: a key given
 * more than once becomes a list of its values, as pip passes them. */
static cJSON *config_json(const struct ts_hook_env *env) {
  if (env->nconfig_settings == 0)
    return cJSON_CreateNull();
  cJSON *o = cJSON_CreateObject();
  for (size_t i = 0; i < env->nconfig_settings; i++) {
    const char *kv = env->config_settings[i];
    const char *eq = strchr(kv, '=');
    char *key = eq ? ts_xstrndup(kv, (size_t)(eq - kv)) : ts_xstrdup(kv);
    const char *val = eq ? eq + 1 : "";
    cJSON *have = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!have) {
      cJSON_AddStringToObject(o, key, val);
    } else if (cJSON_IsArray(have)) {
      cJSON_AddItemToArray(have, cJSON_CreateString(val));
    } else {
      cJSON *list = cJSON_CreateArray();
      cJSON_AddItemToArray(list, cJSON_CreateString(have->valuestring));
      cJSON_AddItemToArray(list, cJSON_CreateString(val));
      cJSON_ReplaceItemInObjectCaseSensitive(o, key, list);
    }
    free(key);
  }
  return o;
}

static enum ts_code write_input(const char *control, const struct ts_hook_env *env,
                                const struct ts_build_system *bs, enum ts_hook hook,
                                const char *directory, const char *metadata_directory,
                                struct ts_error *err) {
  cJSON *in = cJSON_CreateObject();
  cJSON_AddStringToObject(in, "hook", hook_names[hook]);
  cJSON_AddStringToObject(in, "backend", bs->backend);
  cJSON *bp = cJSON_AddArrayToObject(in, "backend_path");
  for (size_t i = 0; i < bs->nbackend_path; i++)
    cJSON_AddItemToArray(bp, cJSON_CreateString(bs->backend_path[i]));
  cJSON_AddItemToObject(in, "config_settings", config_json(env));
  if (directory)
    cJSON_AddStringToObject(in, "directory", directory);
  if (metadata_directory)
    cJSON_AddStringToObject(in, "metadata_directory", metadata_directory);
  char *text = cJSON_PrintUnformatted(in);
  cJSON_Delete(in);
  if (!text)
    abort();
  char *path = ts_path_join(control, "input.json");
  enum ts_code rc = ts_fs_write_atomic(path, text, strlen(text), err);
  free(path);
  free(text);
  return rc;
}

/* The runner's verdict; the backend's last error line when it failed. */
static enum ts_code read_output(const char *control, const struct ts_hook_env *env,
                                enum ts_hook hook, const struct ts_build_system *bs,
                                int status, struct ts_hook_result *out,
                                struct ts_error *err) {
  char *path = ts_path_join(control, "output.json");
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  struct ts_error re = {0};
  enum ts_code rc = ts_fs_read_file(path, &b, &re);
  free(path);
  cJSON *o = rc == TS_OK && b.data ? cJSON_ParseWithLength(b.data, b.len) : NULL;
  ts_buf_clear(&b);
  if (!o) {
    rc = ts_error_set(err, TS_E_BUILD,
                      "the build backend %s exited with status %d before answering "
                      "%s; full log: %s",
                      bs->backend, status, hook_names[hook], env->log_path);
    return rc;
  }
  rc = TS_OK;
  const cJSON *ok = cJSON_GetObjectItemCaseSensitive(o, "ok");
  const cJSON *val = cJSON_GetObjectItemCaseSensitive(o, "value");
  if (!cJSON_IsTrue(ok)) {
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
    rc = ts_error_set(err, TS_E_BUILD, "%s failed in %s: %s; full log: %s",
                      hook_names[hook], bs->backend,
                      cJSON_IsString(e) ? e->valuestring : "no error text",
                      env->log_path);
  } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "unsupported"))) {
    out->unsupported = true;
  } else if (hook == TS_HOOK_GET_REQUIRES_WHEEL || hook == TS_HOOK_GET_REQUIRES_EDITABLE) {
    const cJSON *it;
    if (!cJSON_IsArray(val))
      rc = ts_error_set(err, TS_E_BUILD, "%s of %s returned no list", hook_names[hook],
                        bs->backend);
    cJSON_ArrayForEach(it, val) {
      if (rc != TS_OK)
        break;
      if (!cJSON_IsString(it)) {
        rc = ts_error_set(err, TS_E_BUILD, "%s of %s returned a non-string",
                          hook_names[hook], bs->backend);
        break;
      }
      ts_strv_push(&out->requires, &out->nrequires, it->valuestring,
                   strlen(it->valuestring));
    }
  } else if (!cJSON_IsString(val) || strchr(val->valuestring, '/') ||
             !val->valuestring[0] || !strcmp(val->valuestring, "..")) {
    rc = ts_error_set(err, TS_E_BUILD, "%s of %s returned no file name",
                      hook_names[hook], bs->backend);
  } else {
    out->basename = ts_xstrdup(val->valuestring);
  }
  cJSON_Delete(o);
  return rc;
}

enum ts_code ts_hook_call(const struct ts_hook_env *env, const struct ts_build_system *bs,
                          enum ts_hook hook, const char *directory,
                          const char *metadata_directory, struct ts_hook_result *out,
                          struct ts_error *err) {
  memset(out, 0, sizeof *out);
  char *tmpl = ts_path_join(ts_fs_temp_dir(), "torchsolve-hook-XXXXXX");
  if (!mkdtemp(tmpl)) {
    enum ts_code rc = ts_error_set(err, TS_E_IO, "cannot create a directory in %s: %s",
                                   ts_fs_temp_dir(), strerror(errno));
    free(tmpl);
    return rc;
  }
  enum ts_code rc = write_input(tmpl, env, bs, hook, directory, metadata_directory, err);
  int status = -1;
  if (rc == TS_OK) {
    const char *argv[] = {env->python, "-I", env->runner, "hook", tmpl, NULL};
    /* the caller's variables, then reproducible timestamps (the user's
     * SOURCE_DATE_EPOCH wins: it survives the cleaning) and output in order */
    const char **vars = ts_xcalloc(env->nextra_env + 2, sizeof *vars);
    size_t nvars = 0;
    for (size_t i = 0; i < env->nextra_env; i++)
      vars[nvars++] = env->extra_env[i];
    if (!getenv("SOURCE_DATE_EPOCH"))
      vars[nvars++] = "SOURCE_DATE_EPOCH=" TS_SOURCE_DATE_EPOCH;
    vars[nvars++] = "PYTHONUNBUFFERED=1";
    struct ts_process p = {.argv = argv, .cwd = env->source_dir,
                           .path_prepend = env->path_prepend,
                           .extra_env = vars, .nextra_env = nvars,
                           .log_path = env->log_path, .stream = env->stream,
                           .timeout_s = env->timeout_s, .cancel = env->cancel};
    rc = ts_process_run(&p, &status, err);
    free(vars);
    if (rc == TS_E_TIMEOUT)
      ts_error_wrap(err, "%s", hook_names[hook]);
  }
  if (rc == TS_OK)
    rc = read_output(tmpl, env, hook, bs, status, out, err);
  if (rc == TS_OK && out->unsupported && hook == TS_HOOK_BUILD_EDITABLE)
    rc = ts_error_set(err, TS_E_UNSUPPORTED,
                      "the build backend %s cannot build editable installs (PEP 660 "
                      "build_editable); install without -e", bs->backend);
  else if (rc == TS_OK && out->unsupported && hook == TS_HOOK_BUILD_WHEEL)
    rc = ts_error_set(err, TS_E_BUILD, "the build backend %s has no build_wheel hook",
                      bs->backend);
  struct ts_error ignore = {0};
  ts_fs_remove_tree(tmpl, &ignore);
  free(tmpl);
  if (rc != TS_OK)
    ts_hook_result_clear(out);
  return rc;
}

enum ts_code ts_source_unpack(const struct ts_hook_env *env, const char *archive,
                              const char *dest, char **top, struct ts_error *err) {
  *top = NULL;
  const char *argv[] = {env->python, "-I", env->runner, "unpack", archive, dest, NULL};
  struct ts_process p = {.argv = argv, .log_path = env->log_path,
                         .stream = env->stream, .timeout_s = env->timeout_s,
                         .cancel = env->cancel};
  int status = -1;
  enum ts_code rc = ts_process_run(&p, &status, err);
  if (rc != TS_OK)
    return rc;
  if (status != 0) {
    char *tail = ts_source_log_tail(env->log_path, 1);
    tail[strcspn(tail, "\n")] = '\0';
    rc = ts_error_set(err, strstr(tail, "unsafe member") ? TS_E_UNSAFE_PATH : TS_E_PARSE,
                      "cannot unpack the sdist '%s': %s", archive,
                      tail[0] ? tail : "unreadable archive");
    free(tail);
    return rc;
  }
  /* an sdist holds one NAME-VERSION/ directory */
  DIR *d = opendir(dest);
  if (!d)
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", dest, strerror(errno));
  struct dirent *de;
  char *only = NULL;
  size_t n = 0;
  while ((de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    n++;
    char *sub = ts_path_join(dest, de->d_name);
    struct stat st;
    if (n == 1 && stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
      only = sub;
    else
      free(sub);
  }
  closedir(d);
  if (n == 1 && only) {
    *top = only;
  } else {
    free(only);
    *top = ts_xstrdup(dest);
  }
  return TS_OK;
}

char *ts_source_log_tail(const char *log_path, size_t nlines) {
  int fd = open(log_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ts_xstrdup("");
  off_t size = lseek(fd, 0, SEEK_END);
  size_t want = size > TS_SOURCE_LOG_TAIL_MAX ? TS_SOURCE_LOG_TAIL_MAX : (size_t)(size > 0 ? size : 0);
  char *b = ts_xcalloc(want + 1, 1);
  ssize_t r = want ? pread(fd, b, want, size - (off_t)want) : 0;
  close(fd);
  size_t len = r > 0 ? (size_t)r : 0;
  b[len] = '\0';
  while (len && b[len - 1] == '\n')
    b[--len] = '\0';
  size_t seen = 0;
  size_t start = len;
  while (start > 0) {
    if (b[start - 1] == '\n' && ++seen == nlines)
      break;
    start--;
  }
  char *out = ts_xstrdup(b + start);
  free(b);
  return out;
}
