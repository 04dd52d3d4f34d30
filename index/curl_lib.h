/*
 * index/curl_lib.h — libcurl, loaded when something first needs it.
 *
 * Linked as a dependency, libcurl made every run map it and the thirty
 * libraries it pulls in (TLS, Kerberos, LDAP, SSH, IDN...) and run their
 * constructors: about 2.5 ms of CPU per process, a tenth of a warm
 * resolve that asks no server anything.  So it is opened with dlopen(3)
 * by the first caller that needs it (a transfer, a link only libcurl
 * resolves, --version) and reached through this table of its functions.
 *
 * The table is the one process-wide state of index/: filled once under
 * pthread_once (with curl_global_init, which libcurl wants once per
 * process), never changed after, never unloaded; like the dynamic
 * linker's own bindings.
 */
#pragma once

#include <curl/curl.h>

#include "core/error.h"

/* The shared object opened: libcurl's SONAME (CMake's TS_LIBCURL_SONAME). */
#ifndef TS_LIBCURL_SONAME
#define TS_LIBCURL_SONAME "libcurl.so.4"
#endif

struct ts_curl {
  curl_version_info_data *(*version_info)(CURLversion);
  CURL *(*easy_init)(void);
  void (*easy_cleanup)(CURL *);
  void (*easy_reset)(CURL *);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  const char *(*easy_strerror)(CURLcode);
  CURLM *(*multi_init)(void);
  CURLMcode (*multi_cleanup)(CURLM *);
  CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
  CURLMcode (*multi_add_handle)(CURLM *, CURL *);
  CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
  CURLMcode (*multi_perform)(CURLM *, int *);
  CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned, int, int *);
  CURLMsg *(*multi_info_read)(CURLM *, int *);
  CURLSH *(*share_init)(void);
  CURLSHcode (*share_cleanup)(CURLSH *);
  CURLSHcode (*share_setopt)(CURLSH *, CURLSHoption, ...);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  CURLU *(*url)(void);
  void (*url_cleanup)(CURLU *);
  CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
  CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
  const char *(*url_strerror)(CURLUcode);
  void (*free)(void *);
};

/* The table, libcurl being loaded and initialised by the first call.
 * NULL when it cannot be (not installed, a symbol missing, its global
 * init failing): err (may be NULL) then gets TS_E_NETWORK and names the
 * library and what to do.  Every later call gives the same answer. */
const struct ts_curl *ts_curl_load(struct ts_error *err);
