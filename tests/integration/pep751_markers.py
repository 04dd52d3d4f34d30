"""An independent PEP 751 marker evaluator for the lock tests.

It knows PEP 508's grammar as far as the locks' markers go (and/or,
parentheses, ==/!= on strings, in/not in on strings and on the lock-file
sets `extras` and `dependency_groups`) and nothing of torchsolve, so that
a lock is read the way a standards-only installer would read it.
Imported by the tests' readers: sys.path gets tests/integration first.
"""
import re

TOKEN = re.compile(r"""\s*(?:(\()|(\))|'([^']*)'|"([^"]*)"|(not\s+in\b|in\b|and\b|or\b|==|!=)|([A-Za-z_][A-Za-z0-9_.]*))""")

def tokenize(text):
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise SystemExit("cannot read marker %r at %d" % (text, pos))
        lp, rp, sq, dq, op, name = m.groups()
        if lp: out.append(("(", None))
        elif rp: out.append((")", None))
        elif sq is not None or dq is not None: out.append(("str", sq if sq is not None else dq))
        elif op: out.append(("op", " ".join(op.split())))
        else: out.append(("var", name))
        pos = m.end()
    return out

def evaluate(text, env):
    toks, i = tokenize(text), 0
    def peek():
        return toks[i] if i < len(toks) else (None, None)
    def take():
        nonlocal i
        i += 1
        return toks[i - 1]
    def value():
        kind, v = take()
        if kind == "str": return v
        if kind == "var": return env[v]
        raise SystemExit("bad marker %r" % text)
    def atom():
        if peek()[0] == "(":
            take(); r = disjunction()
            if take()[0] != ")": raise SystemExit("unbalanced %r" % text)
            return r
        lhs = value(); _, op = take(); rhs = value()
        if op == "==": return lhs == rhs
        if op == "!=": return lhs != rhs
        if op == "in": return lhs in rhs
        if op == "not in": return lhs not in rhs
        raise SystemExit("operator %r in %r" % (op, text))
    def conjunction():
        r = atom()
        while peek() == ("op", "and"):
            take(); r = atom() and r
        return r
    def disjunction():
        r = conjunction()
        while peek() == ("op", "or"):
            take(); r = conjunction() or r
        return r
    r = disjunction()
    if i != len(toks): raise SystemExit("trailing tokens in %r" % text)
    return r
