/*
 * pep/marker.c — PEP 508 environment markers, as packaging 26 parses,
 * prints and evaluates them.
 *
 * The parser is packaging's recursive descent (_parser.py) over its
 * context-sensitive tokens (_tokenizer.py), with the nesting depth capped so
 * that hostile input cannot exhaust the stack.  A parsed marker is a tree:
 * a list node holds atoms joined by and/or (evaluated as packaging does: an
 * OR of AND-groups), a comparison node holds two terms and an operator.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/str.h"
#include "core/vec.h"



#include "core/text.h"
#include "pep/name.h"
#include "pep/pep508_internal.h"
#include "pep/requirement.h"
#include "pep/specifier.h"
#include "pep/version_internal.h"

enum mvar {
  V_EXTRA,
  V_EXTRAS,
  V_GROUPS,
  V_IMPL_NAME,
  V_IMPL_VERSION,
  V_OS_NAME,
  V_PLATFORM_MACHINE,
  V_PLATFORM_PYIMPL,
  V_PLATFORM_RELEASE,
  V_PLATFORM_SYSTEM,
  V_PLATFORM_VERSION,
  V_PY_FULL,
  V_PY_VERSION,
  V_SYS_PLATFORM,
  V_VARIANT_LABEL,
  V_VARIANT_NAMESPACES,
  V_VARIANT_FEATURES,
  V_VARIANT_PROPERTIES,
};

static const char *const var_names[] = {
    [V_EXTRA] = "extra",
    [V_EXTRAS] = "extras",
    [V_GROUPS] = "dependency_groups",
    [V_IMPL_NAME] = "implementation_name",
    [V_IMPL_VERSION] = "implementation_version",
    [V_OS_NAME] = "os_name",
    [V_PLATFORM_MACHINE] = "platform_machine",
    [V_PLATFORM_PYIMPL] = "platform_python_implementation",
    [V_PLATFORM_RELEASE] = "platform_release",
    [V_PLATFORM_SYSTEM] = "platform_system",
    [V_PLATFORM_VERSION] = "platform_version",
    [V_PY_FULL] = "python_full_version",
    [V_PY_VERSION] = "python_version",
    [V_SYS_PLATFORM] = "sys_platform",
    [V_VARIANT_LABEL] = "variant_label",
    [V_VARIANT_NAMESPACES] = "variant_namespaces",
    [V_VARIANT_FEATURES] = "variant_features",
    [V_VARIANT_PROPERTIES] = "variant_properties",
};

/* Spellings packaging's VARIABLE token accepts, legacy aliases included. */
static const struct {
  const char *text;
  enum mvar var;
} var_tokens[] = {
    {"python_version", V_PY_VERSION},
    {"python_full_version", V_PY_FULL},
    {"os_name", V_OS_NAME},
    {"os.name", V_OS_NAME},
    {"sys_platform", V_SYS_PLATFORM},
    {"sys.platform", V_SYS_PLATFORM},
    {"platform_release", V_PLATFORM_RELEASE},
    {"platform_system", V_PLATFORM_SYSTEM},
    {"platform_version", V_PLATFORM_VERSION},
    {"platform.version", V_PLATFORM_VERSION},
    {"platform_machine", V_PLATFORM_MACHINE},
    {"platform.machine", V_PLATFORM_MACHINE},
    {"platform_python_implementation", V_PLATFORM_PYIMPL},
    {"platform.python_implementation", V_PLATFORM_PYIMPL},
    {"python_implementation", V_PLATFORM_PYIMPL},
    {"implementation_name", V_IMPL_NAME},
    {"implementation_version", V_IMPL_VERSION},
    {"extra", V_EXTRA},
    {"extras", V_EXTRAS},
    {"dependency_groups", V_GROUPS},
    {"variant_label", V_VARIANT_LABEL},
    {"variant_namespaces", V_VARIANT_NAMESPACES},
    {"variant_features", V_VARIANT_FEATURES},
    {"variant_properties", V_VARIANT_PROPERTIES},
};

enum mop { OP_ARB, OP_EQ, OP_COMPAT, OP_NE, OP_LE, OP_GE, OP_LT, OP_GT, OP_IN, OP_NOT_IN };
static const char *const op_names[] = {
    [OP_ARB] = "===", [OP_EQ] = "==", [OP_COMPAT] = "~=", [OP_NE] = "!=",
    [OP_LE] = "<=",   [OP_GE] = ">=", [OP_LT] = "<",      [OP_GT] = ">",
    [OP_IN] = "in",   [OP_NOT_IN] = "not in",
};

struct mterm {
  bool is_var;
  enum mvar var;
  char *value; /* literal (extra names normalised), NUL-free */
};

struct mnode {
  bool is_list;
  /* comparison */
  struct mterm lhs, rhs;
  enum mop op;
  struct ts_specset *spec;   /* version-ish variable on the left: op+rhs */
  struct ts_version *lhs_ver; /* version-ish variable on the right */
  /* list */
  size_t n;
  struct mnode **items;
  unsigned char *ors; /* ors[i]: "or" between items i and i+1, else "and" */
};

struct ts_marker {
  struct mnode *root;
  char *str;
  bool uses_extra;
};

static bool is_version_var(enum mvar v) {
  return v == V_IMPL_VERSION || v == V_PLATFORM_RELEASE || v == V_PY_FULL ||
         v == V_PY_VERSION;
}
static bool is_set_var(enum mvar v) { return v == V_EXTRAS || v == V_GROUPS; }

/* ---- tokenizer helpers (shared with requirement.c) -------------------- */

size_t ts_pep508_ws(const char *s, size_t len, size_t p) {
  size_t q = p;
  while (q < len && (s[q] == ' ' || s[q] == '\t'))
    q++;
  return q - p;
}

static bool is_word(const char *s, size_t len, size_t p) {
  if (p >= len)
    return false;
  unsigned char c = (unsigned char)s[p];
  return c >= 0x80 || c == '_' || (c >= '0' && c <= '9') ||
         (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool ts_pep508_word_boundary(const char *s, size_t len, size_t p) {
  bool before = p > 0 && is_word(s, len, p - 1);
  bool after = is_word(s, len, p);
  return before != after;
}

size_t ts_pep508_check_utf8(const char *s, size_t len) {
  const char *nul = memchr(s, '\0', len);
  return ts_utf8_check(s, nul ? (size_t)(nul - s) : len);
}

enum ts_code ts_pep508_error(struct ts_error *err, enum ts_code code,
                             const char *s, size_t len, size_t pos,
                             const char *what) {
  char ex[200];
  ts_pep_excerpt(s, len, ex, sizeof ex);
  return ts_error_set(err, code, "%s at position %zu in '%s'", what, pos, ex);
}

/* ---- nodes ----------------------------------------------------------- */

static void node_free(struct mnode *n) {
  if (!n)
    return;
  if (n->is_list) {
    for (size_t i = 0; i < n->n; i++)
      node_free(n->items[i]);
    free(n->items);
    free(n->ors);
  } else {
    free(n->lhs.value);
    free(n->rhs.value);
    ts_specset_free(n->spec);
    ts_version_free(n->lhs_ver);
  }
  free(n);
}

/* ---- parsing ------------------------------------------------------------ */

struct parser {
  const char *s;
  size_t len;
  size_t p;
  struct ts_error *err;
  enum ts_code rc;
};

static bool fail(struct parser *ps, enum ts_code code, size_t pos,
                 const char *what) {
  if (ps->rc == TS_OK)
    ps->rc = ts_pep508_error(ps->err, code, ps->s, ps->len, pos, what);
  return false;
}

static void skip_ws(struct parser *ps) {
  ps->p += ts_pep508_ws(ps->s, ps->len, ps->p);
}

/* A keyword token (`\bword\b`) at the current position. */
static bool keyword_at(const struct parser *ps, const char *w) {
  size_t n = strlen(w);
  return ps->len - ps->p >= n && !memcmp(ps->s + ps->p, w, n) &&
         ts_pep508_word_boundary(ps->s, ps->len, ps->p) &&
         ts_pep508_word_boundary(ps->s, ps->len, ps->p + n);
}

/* packaging evaluates a quoted string with ast.literal_eval: Python escape
 * sequences apply.  Returns a malloc'd value or NULL where Python raises
 * (trailing backslash, bad \x, raw newline) or where the value would hold
 * a NUL, a lone surrogate or both quote characters (which no PEP 508 text
 * could print back). */
static char *unquote(const char *s, size_t b, size_t e) {
  char *out = ts_xmalloc((e - b) * 4 + 1);
  size_t o = 0;
  for (size_t i = b; i < e; i++) {
    char c = s[i];
    if (c == '\n' || c == '\r')
      goto bad;
    if (c != '\\') {
      out[o++] = c;
      continue;
    }
    if (++i >= e)
      goto bad; /* the backslash escapes the closing quote */
    c = s[i];
    uint32_t cp;
    switch (c) {
    case '\\': case '\'': case '"':
      out[o++] = c;
      continue;
    case 'a': out[o++] = '\a'; continue;
    case 'b': out[o++] = '\b'; continue;
    case 'f': out[o++] = '\f'; continue;
    case 'n': out[o++] = '\n'; continue;
    case 'r': out[o++] = '\r'; continue;
    case 't': out[o++] = '\t'; continue;
    case 'v': out[o++] = '\v'; continue;
    case '\n':
      continue; /* line continuation */
    case 'x': case 'u': case 'U': {
      size_t nd = c == 'x' ? 2 : c == 'u' ? 4 : 8;
      if (e - i - 1 < nd)
        goto bad;
      cp = 0;
      for (size_t k = 1; k <= nd; k++) {
        int h = ts_hex_digit(s[i + k]);
        if (h < 0)
          goto bad;
        cp = cp * 16 + (uint32_t)h;
      }
      i += nd;
      break;
    }
    case 'N':
      goto bad; /* named escapes need Unicode's name table */
    default:
      if (c >= '0' && c <= '7') {
        cp = (uint32_t)(c - '0');
        for (int k = 0; k < 2 && i + 1 < e && s[i + 1] >= '0' && s[i + 1] <= '7';
             k++)
          cp = cp * 8 + (uint32_t)(s[++i] - '0');
        break;
      }
      /* Unknown escapes keep their backslash (Python warns, then does). */
      out[o++] = '\\';
      out[o++] = c;
      continue;
    }
    if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      goto bad;
    o += ts_utf8_put(out + o, cp);
  }
  out[o] = '\0';
  if (strchr(out, '"') && strchr(out, '\''))
    goto bad;
  return out;
bad:
  free(out);
  return NULL;
}

static bool parse_term(struct parser *ps, struct mterm *t) {
  const char *s = ps->s;
  if (ts_pep508_word_boundary(s, ps->len, ps->p)) {
    for (size_t i = 0; i < sizeof var_tokens / sizeof var_tokens[0]; i++) {
      size_t n = strlen(var_tokens[i].text);
      if (ps->len - ps->p >= n && !memcmp(s + ps->p, var_tokens[i].text, n) &&
          ts_pep508_word_boundary(s, ps->len, ps->p + n)) {
        t->is_var = true;
        t->var = var_tokens[i].var;
        ps->p += n;
        return true;
      }
    }
  }
  if (ps->p < ps->len && (s[ps->p] == '\'' || s[ps->p] == '"')) {
    const char *close = memchr(s + ps->p + 1, s[ps->p], ps->len - ps->p - 1);
    if (close) {
      size_t e = (size_t)(close - s);
      t->is_var = false;
      t->value = unquote(s, ps->p + 1, e);
      if (!t->value)
        return fail(ps, TS_E_PARSE, ps->p, "invalid quoted string");
      ps->p = e + 1;
      return true;
    }
  }
  return fail(ps, TS_E_PARSE, ps->p,
              "expected a marker variable or quoted string");
}

static bool parse_op(struct parser *ps, enum mop *op) {
  if (keyword_at(ps, "in")) {
    ps->p += 2;
    *op = OP_IN;
    return true;
  }
  if (keyword_at(ps, "not")) {
    ps->p += 3;
    if (ts_pep508_ws(ps->s, ps->len, ps->p) == 0)
      return fail(ps, TS_E_PARSE, ps->p, "expected whitespace after 'not'");
    skip_ws(ps);
    if (!keyword_at(ps, "in"))
      return fail(ps, TS_E_PARSE, ps->p, "expected 'in' after 'not'");
    ps->p += 2;
    *op = OP_NOT_IN;
    return true;
  }
  /* Longest first, as packaging's OP regex alternation. */
  static const enum mop ops[] = {OP_ARB, OP_EQ, OP_COMPAT, OP_NE,
                                 OP_LE,  OP_GE, OP_LT,     OP_GT};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    size_t n = strlen(op_names[ops[i]]);
    if (ps->len - ps->p >= n && !memcmp(ps->s + ps->p, op_names[ops[i]], n)) {
      ps->p += n;
      *op = ops[i];
      return true;
    }
  }
  return fail(ps, TS_E_PARSE, ps->p,
              "expected a marker operator, one of <=, <, !=, ==, >=, >, ~=, "
              "===, in, not in");
}

/* Normalises literal extra names compared with extra/extras/groups
 * (PEP 685), and pre-parses version comparisons. */
static void finish_compare(struct mnode *n) {
  struct mterm *lit = NULL;
  if (n->lhs.is_var && !n->rhs.is_var)
    lit = &n->rhs;
  else if (n->rhs.is_var && !n->lhs.is_var)
    lit = &n->lhs;
  enum mvar var = n->lhs.is_var ? n->lhs.var : n->rhs.var;
  if (lit && (var == V_EXTRA || is_set_var(var))) {
    char *norm = ts_name_normalize(lit->value, strlen(lit->value));
    free(lit->value);
    lit->value = norm;
  }
  if (n->lhs.is_var && !n->rhs.is_var && is_version_var(n->lhs.var) &&
      n->op != OP_IN && n->op != OP_NOT_IN && !strchr(n->rhs.value, ',')) {
    /* packaging tries Specifier(op + value) on every evaluation; a value
     * that is not a valid specifier falls back to string comparison. */
    size_t ol = strlen(op_names[n->op]), vl = strlen(n->rhs.value);
    char *t = ts_xmalloc(ol + vl + 1);
    memcpy(t, op_names[n->op], ol);
    memcpy(t + ol, n->rhs.value, vl + 1);
    if (ts_specset_parse(t, ol + vl, &n->spec, NULL) == TS_OK &&
        ts_specset_count(n->spec) != 1) {
      ts_specset_free(n->spec);
      n->spec = NULL;
    }
    free(t);
  }
  if (n->rhs.is_var && !n->lhs.is_var && is_version_var(n->rhs.var))
    (void)ts_version_parse(n->lhs.value, strlen(n->lhs.value), &n->lhs_ver,
                           NULL);
}

static struct mnode *parse_list(struct parser *ps, int depth);

static struct mnode *parse_atom(struct parser *ps, int depth) {
  skip_ws(ps);
  if (ps->p < ps->len && ps->s[ps->p] == '(') {
    if (depth >= TS_MARKER_MAX_DEPTH) {
      fail(ps, TS_E_TOO_BIG, ps->p,
           "marker parentheses nested too deep (limit "
           "TS_MARKER_MAX_DEPTH)");
      return NULL;
    }
    ps->p++;
    skip_ws(ps);
    struct mnode *inner = parse_list(ps, depth + 1);
    if (!inner)
      return NULL;
    skip_ws(ps);
    if (ps->p >= ps->len || ps->s[ps->p] != ')') {
      node_free(inner);
      fail(ps, TS_E_PARSE, ps->p,
           "expected matching ')' for '(', after marker expression");
      return NULL;
    }
    ps->p++;
    skip_ws(ps);
    return inner;
  }
  struct mnode *n = ts_xcalloc(1, sizeof *n);
  skip_ws(ps);
  if (!parse_term(ps, &n->lhs))
    goto bad;
  skip_ws(ps);
  if (!parse_op(ps, &n->op))
    goto bad;
  skip_ws(ps);
  if (!parse_term(ps, &n->rhs))
    goto bad;
  skip_ws(ps);
  finish_compare(n);
  return n;

bad:
  node_free(n);
  return NULL;
}

static struct mnode *parse_list(struct parser *ps, int depth) {
  struct mnode *list = ts_xcalloc(1, sizeof *list);
  list->is_list = true;
  size_t items_cap = 0, ors_cap = 0;
  for (;;) {
    struct mnode *atom = parse_atom(ps, depth);
    if (!atom)
      goto bad;
    list->items = ts_vec_grow(list->items, &items_cap, list->n + 1, sizeof *list->items);
    list->ors = ts_vec_grow(list->ors, &ors_cap, list->n + 1, sizeof *list->ors);
    list->items[list->n] = atom;
    list->ors[list->n] = 0;
    list->n++;
    if (keyword_at(ps, "or")) {
      list->ors[list->n - 1] = 1;
      ps->p += 2;
    } else if (keyword_at(ps, "and")) {
      ps->p += 3;
    } else {
      break;
    }
  }
  return list;
bad:
  node_free(list);
  return NULL;
}

/* ---- printing ------------------------------------------------------------ */

static void put_term(struct ts_buf *b, const struct mterm *t) {
  if (t->is_var) {
    ts_buf_xappend_str(b, var_names[t->var]);
    return;
  }
  /* packaging prints double quotes unless the value holds one. */
  const char *q = strchr(t->value, '"') ? "'" : "\"";
  ts_buf_xappend_str(b, q);
  if (strpbrk(t->value, "\\\n\r")) {
    /* packaging prints the value raw, which does not parse back to the same
     * value once it holds a backslash or a line break: escape those. */
    for (const char *c = t->value; *c; c++) {
      const char *esc = *c == '\\' ? "\\\\" : *c == '\n' ? "\\n"
                        : *c == '\r' ? "\\r" : NULL;
      if (esc)
        ts_buf_xappend_str(b, esc);
      else
        ts_buf_xappend(b, c, 1);
    }
  } else {
    ts_buf_xappend_str(b, t->value);
  }
  ts_buf_xappend_str(b, q);
}

/* packaging's _format_marker, except that a doubly parenthesised group
 * keeps one pair of parentheses when nested ("a and ((b or c))"):
 * packaging prints it without any, which changes the meaning. */
static void format_node(struct ts_buf *b, const struct mnode *n, bool first) {
  if (!n->is_list) {
    put_term(b, &n->lhs);
    ts_buf_xappend_str(b, " ");
    ts_buf_xappend_str(b, op_names[n->op]);
    ts_buf_xappend_str(b, " ");
    put_term(b, &n->rhs);
    return;
  }
  if (n->n == 1) {
    format_node(b, n->items[0], first);
    return;
  }
  if (!first)
    ts_buf_xappend_str(b, "(");
  for (size_t i = 0; i < n->n; i++) {
    if (i)
      ts_buf_xappend_str(b, n->ors[i - 1] ? " or " : " and ");
    format_node(b, n->items[i], false);
  }
  if (!first)
    ts_buf_xappend_str(b, ")");
}

static bool node_uses_extra(const struct mnode *n) {
  if (n->is_list) {
    for (size_t i = 0; i < n->n; i++)
      if (node_uses_extra(n->items[i]))
        return true;
    return false;
  }
  return (n->lhs.is_var && n->lhs.var == V_EXTRA) ||
         (n->rhs.is_var && n->rhs.var == V_EXTRA);
}

enum ts_code ts_marker_parse_at(const char *s, size_t len, size_t *pos,
                                struct ts_marker **out, struct ts_error *err) {
  *out = NULL;
  struct parser ps = {s, len, *pos, err, TS_OK};
  struct mnode *root = parse_list(&ps, 0);
  if (!root)
    return ps.rc;
  struct ts_buf b;
  ts_buf_init(&b, 0);
  format_node(&b, root, true);
  struct ts_marker *m = ts_xcalloc(1, sizeof *m);
  m->root = root;
  m->str = ts_buf_take(&b, NULL);
  m->uses_extra = node_uses_extra(root);
  *pos = ps.p;
  *out = m;
  return TS_OK;
}

enum ts_code ts_marker_parse(const char *s, size_t len, struct ts_marker **out,
                             struct ts_error *err) {
  *out = NULL;
  if (len > TS_REQUIREMENT_MAX_LEN)
    return ts_error_set(err, TS_E_TOO_BIG,
                        "marker of %zu bytes is longer than the %d-byte limit",
                        len, TS_REQUIREMENT_MAX_LEN);
  size_t bad = ts_pep508_check_utf8(s, len);
  if (bad < len)
    return ts_pep508_error(err, TS_E_PARSE, s, len, bad,
                           s[bad] ? "invalid UTF-8" : "NUL byte");
  size_t p = 0;
  struct ts_marker *m;
  enum ts_code rc = ts_marker_parse_at(s, len, &p, &m, err);
  if (rc != TS_OK)
    return rc;
  if (p != len) {
    ts_marker_free(m);
    return ts_pep508_error(err, TS_E_PARSE, s, len, p,
                           "expected end of marker expression");
  }
  *out = m;
  return TS_OK;
}

void ts_marker_free(struct ts_marker *m) {
  if (!m)
    return;
  node_free(m->root);
  free(m->str);
  free(m);
}

struct ts_marker *ts_marker_dup(const struct ts_marker *m) {
  if (!m)
    return NULL;
  /* The printed form re-parses to the same tree (see format_node). */
  struct ts_marker *d = NULL;
  if (ts_marker_parse(m->str, strlen(m->str), &d, NULL) != TS_OK)
    return NULL;
  return d;
}

const char *ts_marker_str(const struct ts_marker *m) { return m->str; }
bool ts_marker_uses_extra(const struct ts_marker *m) { return m->uses_extra; }

/* ---- evaluation ------------------------------------------------------- */

struct evalctx {
  const struct ts_marker_env *env;
  const struct ts_marker_eval_opts *opts;
  const char *extra; /* normalised, or NULL when undefined */
  char pyfull[128];  /* python_full_version with a trailing '+' repaired */
  const char *pyfull_val;
  struct ts_error *err;
};

static const char *env_str(const struct evalctx *c, enum mvar v) {
  const struct ts_marker_env *e = c->env;
  const char *r = NULL;
  if (!e)
    return "";
  switch (v) {
  case V_IMPL_NAME: r = e->implementation_name; break;
  case V_IMPL_VERSION: r = e->implementation_version; break;
  case V_OS_NAME: r = e->os_name; break;
  case V_PLATFORM_MACHINE: r = e->platform_machine; break;
  case V_PLATFORM_PYIMPL: r = e->platform_python_implementation; break;
  case V_PLATFORM_RELEASE: r = e->platform_release; break;
  case V_PLATFORM_SYSTEM: r = e->platform_system; break;
  case V_PLATFORM_VERSION: r = e->platform_version; break;
  case V_PY_FULL: r = c->pyfull_val; break;
  case V_PY_VERSION: r = e->python_version; break;
  case V_SYS_PLATFORM: r = e->sys_platform; break;
  case V_VARIANT_LABEL: r = e->variant_label; break;
  default: break;
  }
  return r ? r : "";
}

static enum ts_code undefined(const struct evalctx *c, const char *what,
                              const struct mnode *n) {
  return ts_error_set(c->err, TS_E_INVALID,
                      "%s in marker comparison '%s%s%s %s %s%s%s'", what,
                      n->lhs.is_var ? "" : "\"",
                      n->lhs.is_var ? var_names[n->lhs.var] : n->lhs.value,
                      n->lhs.is_var ? "" : "\"", op_names[n->op],
                      n->rhs.is_var ? "" : "\"",
                      n->rhs.is_var ? var_names[n->rhs.var] : n->rhs.value,
                      n->rhs.is_var ? "" : "\"");
}

/* `lhs op rhs` on strings, packaging's _operators table: ordering on
 * strings is false, <= and >= mean equality, ~= and === are undefined. */
static int string_op(enum mop op, const char *l, const char *r) {
  switch (op) {
  case OP_IN: return strstr(r, l) != NULL;
  case OP_NOT_IN: return strstr(r, l) == NULL;
  case OP_EQ: case OP_LE: case OP_GE: return strcmp(l, r) == 0;
  case OP_NE: return strcmp(l, r) != 0;
  case OP_LT: case OP_GT: return 0;
  default: return -1;
  }
}

/* Specifier(op + rhs).contains(lhs, prereleases=True); -1 when op + rhs is
 * not a specifier. */
static int version_op(const struct mnode *n, const struct ts_specset *spec,
                      const char *l, const struct ts_version *lv,
                      const char *r) {
  struct ts_specset *owned = NULL;
  if (!spec) {
    if (n->op == OP_IN || n->op == OP_NOT_IN || strchr(r, ','))
      return -1;
    size_t ol = strlen(op_names[n->op]), rl = strlen(r);
    char *t = ts_xmalloc(ol + rl + 1);
    memcpy(t, op_names[n->op], ol);
    memcpy(t + ol, r, rl + 1);
    enum ts_code rc = ts_specset_parse(t, ol + rl, &owned, NULL);
    free(t);
    if (rc != TS_OK)
      return -1;
    if (ts_specset_count(owned) != 1) {
      ts_specset_free(owned);
      return -1;
    }
    spec = owned;
  }
  struct ts_version *tmp = NULL;
  if (!lv && ts_version_parse(l, strlen(l), &tmp, NULL) == TS_OK)
    lv = tmp;
  bool res =
      ts_specset_contains_ex(spec, lv, l, strlen(l), TS_PRE_INCLUDE, false);
  ts_version_free(tmp);
  ts_specset_free(owned);
  return res;
}

static bool in_set(const char *const *set, size_t n, const char *name) {
  size_t l = strlen(name);
  for (size_t i = 0; i < n; i++)
    if (set[i] && ts_name_eq(set[i], strlen(set[i]), name, l))
      return true;
  return false;
}

/* Whether the variant's properties ("ns :: feature :: value") hold the
 * namespace, "ns :: feature" or property `what`. */
static bool variant_has(const struct ts_marker_env *e, enum mvar set, const char *what) {
  size_t wl = strlen(what);
  for (size_t i = 0; i < e->nvariant_properties; i++) {
    const char *p = e->variant_properties[i];
    if (set == V_VARIANT_PROPERTIES ? strcmp(p, what) == 0
                                    : strncmp(p, what, wl) == 0 && strncmp(p + wl, " :: ", 4) == 0 &&
                                          (set == V_VARIANT_NAMESPACES) == (strstr(p + wl + 4, " :: ") != NULL))
      return true;
  }
  return false;
}

static enum ts_code eval_compare(const struct evalctx *c, const struct mnode *n,
                                 bool *out) {
  const struct ts_marker_eval_opts *o = c->opts;
  bool var_left = n->lhs.is_var;
  const struct mterm *vt = var_left ? &n->lhs : (n->rhs.is_var ? &n->rhs : NULL);
  /* The value of a variable that is not the looked-up side is its name
   * (packaging uses Variable.value), e.g. `extra == os_name`. */
  const char *l = n->lhs.is_var ? var_names[n->lhs.var] : n->lhs.value;
  const char *r = n->rhs.is_var ? var_names[n->rhs.var] : n->rhs.value;
  if (!vt) {
    /* Two literals: packaging looks the right one up as an environment
     * key; PEP 508 has no such names, so compare the literals as given. */
    int res = string_op(n->op, l, r);
    if (res < 0)
      return undefined(c, "undefined comparison", n);
    *out = res;
    return TS_OK;
  }
  enum mvar key = vt->var;
  if (key >= V_VARIANT_NAMESPACES) { /* PEP 825's sets: empty without a variant */
    if (var_left || (n->op != OP_IN && n->op != OP_NOT_IN))
      return undefined(c, "undefined comparison", n);
    bool found = c->env && variant_has(c->env, key, l);
    *out = n->op == OP_IN ? found : !found;
    return TS_OK;
  }
  if (is_set_var(key)) {
    const char *const *set = key == V_EXTRAS ? o->extras : o->dependency_groups;
    size_t nset = key == V_EXTRAS ? o->nextras : o->ngroups;
    if (!set && o->context != TS_MARKER_LOCK_FILE)
      return ts_error_set(c->err, TS_E_INVALID,
                          "undefined environment name '%s' in marker",
                          var_names[key]);
    if (var_left || (n->op != OP_IN && n->op != OP_NOT_IN))
      return undefined(c, "undefined comparison", n);
    bool found = set && in_set(set, nset, l);
    *out = n->op == OP_IN ? found : !found;
    return TS_OK;
  }
  const char *val;
  if (key == V_EXTRA) {
    if (!c->extra)
      return ts_error_set(c->err, TS_E_INVALID,
                          "undefined environment name 'extra' in marker");
    val = c->extra;
  } else {
    val = env_str(c, key);
  }
  if (var_left)
    l = val;
  else
    r = val;
  if (is_version_var(key)) {
    int res = version_op(n, var_left ? n->spec : NULL, l,
                         var_left ? NULL : n->lhs_ver, r);
    if (res >= 0) {
      *out = res;
      return TS_OK;
    }
  }
  int res = string_op(n->op, l, r);
  if (res < 0)
    return undefined(c, "undefined comparison", n);
  *out = res;
  return TS_OK;
}

static enum ts_code eval_node(const struct evalctx *c, const struct mnode *n,
                              bool *out) {
  if (!n->is_list)
    return eval_compare(c, n, out);
  /* An OR of AND-groups; every item is evaluated, as packaging does. */
  bool any = false, group = true;
  for (size_t i = 0; i < n->n; i++) {
    bool v;
    enum ts_code rc = eval_node(c, n->items[i], &v);
    if (rc != TS_OK)
      return rc;
    group = group && v;
    if (i + 1 == n->n || n->ors[i]) {
      any = any || group;
      group = true;
    }
  }
  *out = any;
  return TS_OK;
}

enum ts_code ts_marker_evaluate(const struct ts_marker *m,
                                const struct ts_marker_env *env,
                                const struct ts_marker_eval_opts *opts,
                                bool *result, struct ts_error *err) {
  static const struct ts_marker_eval_opts defaults = {TS_MARKER_METADATA,
                                                      NULL, NULL, 0, NULL, 0};
  struct evalctx c = {env, opts ? opts : &defaults, NULL, "", "", err};
  char *extra_norm = NULL;
  const char *extra = c.opts->extra;
  if (extra && *extra) {
    extra_norm = ts_name_normalize(extra, strlen(extra));

    c.extra = extra_norm;
  } else if (extra || c.opts->context == TS_MARKER_METADATA) {
    c.extra = "";
  }
  const char *pf = env && env->python_full_version ? env->python_full_version : "";
  size_t pl = strlen(pf);
  if (pl > 0 && pf[pl - 1] == '+' && pl + 6 <= sizeof c.pyfull) {
    /* Untagged CPython builds report "3.13.1+": packaging repairs it. */
    memcpy(c.pyfull, pf, pl);
    memcpy(c.pyfull + pl, "local", 6);
    c.pyfull_val = c.pyfull;
  } else {
    c.pyfull_val = pf;
  }
  bool r = false;
  enum ts_code rc = eval_node(&c, m->root, &r);
  free(extra_norm);
  if (rc == TS_OK)
    *result = r;
  return rc;
}

bool ts_marker_eval(const struct ts_marker *m, const struct ts_marker_env *env,
                    const char *extra) {
  struct ts_marker_eval_opts o = {TS_MARKER_METADATA, extra, NULL, 0, NULL, 0};
  bool r = false;
  if (ts_marker_evaluate(m, env, &o, &r, NULL) != TS_OK)
    return false;
  return r;
}

static void collect_literals(const struct mnode *n, enum mvar var, const char **out, size_t cap,
                             size_t *count) {
  if (n->is_list) {
    for (size_t i = 0; i < n->n; i++)
      collect_literals(n->items[i], var, out, cap, count);
    return;
  }
  if (n->op != OP_EQ && n->op != OP_NE)
    return;
  const struct mterm *lit = n->lhs.is_var && n->lhs.var == var && !n->rhs.is_var ? &n->rhs
                            : n->rhs.is_var && n->rhs.var == var && !n->lhs.is_var ? &n->lhs
                                                                                 : NULL;
  if (!lit)
    return;
  for (size_t i = 0; i < *count && i < cap; i++)
    if (strcmp(out[i], lit->value) == 0)
      return;
  if (*count < cap)
    out[*count] = lit->value;
  (*count)++;
}

size_t ts_marker_literals(const struct ts_marker *m, const char *variable, const char **out,
                          size_t cap) {
  size_t count = 0;
  for (size_t i = 0; i < sizeof var_names / sizeof *var_names; i++)
    if (var_names[i] && strcmp(var_names[i], variable) == 0 && m && m->root)
      collect_literals(m->root, (enum mvar)i, out, cap, &count);
  return count;
}

/* ---- deciding the lock-file sets ------------------------------------------ */

/* A node with the set comparisons decided: known (value) or a rest to
 * evaluate later, as text; top_or when that text is an `or` at its top. */
struct partial {
  bool known, value, top_or;
  struct ts_buf rest;
};

static enum ts_code decide_node(const struct evalctx *c, const struct mnode *n,
                                struct partial *out);

/* Joins b's rest to a's with `or` or `and`, parenthesising an `or` that
 * comes to be inside an `and` (a's too, once it gets a second part). */
static enum ts_code join_rest(struct partial *a, const struct partial *b, bool or) {
  enum ts_code rc = TS_OK;
  if (!or && a->rest.len && a->top_or) {
    struct ts_buf wrapped;
    ts_buf_init(&wrapped, 0);
    ts_buf_xprintf(&wrapped, "(%.*s)", (int)a->rest.len, a->rest.data);
    ts_buf_clear(&a->rest);
    a->rest = wrapped;
    a->top_or = false;
  }
  bool wrap = !or && a->rest.len && b->top_or;
  if (a->rest.len)
    rc = ts_buf_append_str(&a->rest, or ? " or " : " and ");
  else
    a->top_or = b->top_or; /* b's text is a's whole */
  if (rc == TS_OK && wrap)
    rc = ts_buf_append_str(&a->rest, "(");
  if (rc == TS_OK)
    rc = ts_buf_append(&a->rest, b->rest.data, b->rest.len);
  if (rc == TS_OK && wrap)
    rc = ts_buf_append_str(&a->rest, ")");
  return rc;
}

static enum ts_code decide_list(const struct evalctx *c, const struct mnode *n,
                                struct partial *out) {
  /* An OR of AND-groups, as eval_node reads it: a group with an item
   * known false drops out, one whose items are all known true makes the
   * whole true, the others keep their unknown items. */
  struct partial group = {.known = true, .value = true};
  ts_buf_init(&group.rest, 0);
  size_t ngroups = 0;
  bool any_true = false, last_group_or = false;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n->n && rc == TS_OK; i++) {
    bool dead = group.known && !group.value;
    struct partial item;
    rc = decide_node(c, n->items[i], &item);
    if (rc == TS_OK && !dead && item.known && !item.value) {
      group.value = false; /* the group is false whatever the rest */
      group.known = true;
    } else if (rc == TS_OK && !dead && !item.known) {
      rc = join_rest(&group, &item, false);
      group.known = false;
    }
    ts_buf_clear(&item.rest);
    if (rc != TS_OK || (i + 1 < n->n && !n->ors[i]))
      continue;
    if (group.known && group.value) {
      any_true = true;
    } else if (!group.known) {
      last_group_or = group.top_or;
      rc = join_rest(out, &group, true);
      ngroups++;
    }
    group.known = group.value = true;
    group.top_or = false;
    group.rest.len = 0;
  }
  ts_buf_clear(&group.rest);
  out->known = any_true || ngroups == 0;
  out->value = any_true;
  out->top_or = !out->known && (ngroups > 1 || last_group_or);
  if (out->known)
    out->rest.len = 0;
  return rc;
}

static enum ts_code decide_node(const struct evalctx *c, const struct mnode *n,
                                struct partial *out) {
  memset(out, 0, sizeof *out);
  ts_buf_init(&out->rest, 0);
  if (n->is_list)
    return decide_list(c, n, out);
  bool set = (n->lhs.is_var && is_set_var(n->lhs.var)) || (n->rhs.is_var && is_set_var(n->rhs.var));
  if (set) {
    out->known = true;
    return eval_compare(c, n, &out->value);
  }
  format_node(&out->rest, n, true);
  return TS_OK;
}

enum ts_code ts_marker_decide_sets(const struct ts_marker *m,
                                   const struct ts_marker_eval_opts *opts, bool *holds,
                                   char **rest, struct ts_error *err) {
  struct ts_marker_eval_opts o = *opts;
  o.context = TS_MARKER_LOCK_FILE;
  struct evalctx c = {NULL, &o, NULL, "", "", err};
  struct partial p;
  *holds = true;
  *rest = NULL;
  enum ts_code rc = decide_node(&c, m->root, &p);
  if (rc == TS_OK && p.known)
    *holds = p.value;
  else if (rc == TS_OK)
    *rest = ts_buf_take(&p.rest, NULL);
  ts_buf_clear(&p.rest);
  return rc;
}
