/* Names people type for another project: see alias.h. */
#include "index/alias.h"

#include <string.h>

static const struct {
  const char *typed, *project;
} aliases[] = {
    {"pytorch", "torch"},           {"sklearn", "scikit-learn"},
    {"cv2", "opencv-python"},       {"pil", "pillow"},
    {"yaml", "pyyaml"},             {"bs4", "beautifulsoup4"},
    {"skimage", "scikit-image"},    {"dateutil", "python-dateutil"},
    {"dotenv", "python-dotenv"},    {"serial", "pyserial"},
    {"crypto", "pycryptodome"},     {"jwt", "pyjwt"},
    {"attr", "attrs"},              {"zmq", "pyzmq"},
    {"docx", "python-docx"},        {"fitz", "pymupdf"},
    {"magic", "python-magic"},      {"faiss", "faiss-cpu"},
};

const char *ts_index_known_alias(const char *name) {
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (!strcmp(name, aliases[i].typed))
      return aliases[i].project;
  return NULL;
}
