/*
 * index/alias.h — names people type for a project that is published under
 * another name: the import name or the old name ("sklearn" is
 * scikit-learn, "cv2" opencv-python), and "pytorch", which is torch.  A
 * project no index has is answered with its real name before any name
 * merely spelt alike ("pytorch" is near "gpytorch", but means torch).
 */
#pragma once

/* The project a normalised name (PEP 503) stands for, or NULL when it is
 * not one of the table's: pytorch→torch, sklearn→scikit-learn,
 * cv2→opencv-python, pil→pillow, yaml→pyyaml, bs4→beautifulsoup4,
 * skimage→scikit-image, dateutil→python-dateutil, dotenv→python-dotenv,
 * serial→pyserial, crypto→pycryptodome, jwt→pyjwt, attr→attrs, zmq→pyzmq,
 * docx→python-docx, fitz→pymupdf, magic→python-magic, faiss→faiss-cpu. */
const char *ts_index_known_alias(const char *name);
