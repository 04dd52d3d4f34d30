#include <stdio.h>

#include "index/curl_lib.h"
#include "index/http.h"

const char *ts_http_libcurl_version(void) {
  /* Written once per call into a static buffer: the strings it is built from
   * are themselves static in libcurl, so this is idempotent. */
  static char text[256];
  struct ts_error err = {0};
  const struct ts_curl *curl = ts_curl_load(&err);
  if (!curl) {
    snprintf(text, sizeof text, "(not loaded: %.200s)", err.detail);
    return text;
  }
  const curl_version_info_data *info = curl->version_info(CURLVERSION_NOW);
  snprintf(text, sizeof text, "%s%s%s%s", info->version,
           info->ssl_version ? " (" : "",
           info->ssl_version ? info->ssl_version : "",
           info->ssl_version ? ")" : "");
  return text;
}
