#include <curl/curl.h>
#include <stdio.h>

#include "index/http.h"

const char *ts_http_libcurl_version(void) {
  /* Written once per call into a static buffer: the strings it is built from
   * are themselves static in libcurl, so this is idempotent. */
  static char text[128];
  const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
  snprintf(text, sizeof text, "%s%s%s%s", info->version,
           info->ssl_version ? " (" : "",
           info->ssl_version ? info->ssl_version : "",
           info->ssl_version ? ")" : "");
  return text;
}
