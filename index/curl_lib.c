/* libcurl through dlopen; see curl_lib.h. */
#include "index/curl_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Written once under `once` (see the header), read-only after. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct ts_curl table;
static bool loaded;
static char why[200];

static void load(void) {
  /* RTLD_LAZY: libcurl itself is linked with BIND_NOW, but binding every
   * symbol of the libraries it pulls in (most never called over http://)
   * was 2.6M of the 18M instructions its loading costs.
   * curl_global_init's flags change nothing here: the TLS library is set
   * up when a transfer needs it, so CURL_GLOBAL_DEFAULT costs the same as
   * none. */
  void *lib = dlopen(TS_LIBCURL_SONAME, RTLD_LAZY | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, sizeof why, "%s", e ? e : "not found");
    return;
  }
  struct {
    void **slot;
    const char *name;
  } syms[] = {
      {(void **)&table.version_info, "curl_version_info"},
      {(void **)&table.easy_init, "curl_easy_init"},
      {(void **)&table.easy_cleanup, "curl_easy_cleanup"},
      {(void **)&table.easy_reset, "curl_easy_reset"},
      {(void **)&table.easy_setopt, "curl_easy_setopt"},
      {(void **)&table.easy_getinfo, "curl_easy_getinfo"},
      {(void **)&table.easy_strerror, "curl_easy_strerror"},
      {(void **)&table.multi_init, "curl_multi_init"},
      {(void **)&table.multi_cleanup, "curl_multi_cleanup"},
      {(void **)&table.multi_setopt, "curl_multi_setopt"},
      {(void **)&table.multi_add_handle, "curl_multi_add_handle"},
      {(void **)&table.multi_remove_handle, "curl_multi_remove_handle"},
      {(void **)&table.multi_perform, "curl_multi_perform"},
      {(void **)&table.multi_poll, "curl_multi_poll"},
      {(void **)&table.multi_info_read, "curl_multi_info_read"},
      {(void **)&table.share_init, "curl_share_init"},
      {(void **)&table.share_cleanup, "curl_share_cleanup"},
      {(void **)&table.share_setopt, "curl_share_setopt"},
      {(void **)&table.slist_append, "curl_slist_append"},
      {(void **)&table.slist_free_all, "curl_slist_free_all"},
      {(void **)&table.url, "curl_url"},
      {(void **)&table.url_cleanup, "curl_url_cleanup"},
      {(void **)&table.url_set, "curl_url_set"},
      {(void **)&table.url_get, "curl_url_get"},
      {(void **)&table.url_strerror, "curl_url_strerror"},
      {(void **)&table.free, "curl_free"},
  };
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    if (!(*syms[i].slot = dlsym(lib, syms[i].name))) {
      snprintf(why, sizeof why, "it has no %s (libcurl 7.66 or newer is needed)",
               syms[i].name);
      dlclose(lib);
      return;
    }
  }
  CURLcode (*global_init)(long);
  *(void **)&global_init = dlsym(lib, "curl_global_init");
  if (!global_init || global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    snprintf(why, sizeof why, "its global initialisation failed");
    dlclose(lib);
    return;
  }
  loaded = true; /* the library stays loaded for the life of the process */
}

const struct ts_curl *ts_curl_load(struct ts_error *err) {
  pthread_once(&once, load);
  if (loaded)
    return &table;
  ts_error_set(err, TS_E_NETWORK,
               "cannot load libcurl (%s): %s; install libcurl 4 (Debian: apt-get install "
               "libcurl4)", TS_LIBCURL_SONAME, why);
  return NULL;
}
