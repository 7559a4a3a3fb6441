#!/usr/bin/env python3
# aaexec.py - may a confined libvirt daemon run a program, and with what?
# For test-apparmor.sh.
#
#   aaexec.py PREPROCESSED PROFILE PATH [--read FILE]... [--map FILE]...
#             [--socket SOCKET]
#
# PREPROCESSED is `apparmor_parser -p` of a profile (its includes
# expanded, its variables not); PROFILE the name of the profile in it
# (libvirtd, virtqemud); PATH the file the daemon executes, symlinks
# resolved (AppArmor judges the target of a symlink). Prints the exec
# rules that match PATH and what they give it:
#
#   exec PATH: '/etc/libvirt/hooks/** rmix' -> inherit (ix)
#
# then, when the program inherits the daemon's profile (ix, or pix/pux
# without a profile of its own: none is shipped for it), one line per
# need: read of each --read FILE, mmap of each --map FILE (its
# libraries), and for the --socket (a UNIX stream socket with a path,
# served by an unconfined daemon): file write on its path, which is how
# AppArmor mediates a connect to a socket with a path (apparmor.d(5):
# "Unix domain sockets with file system paths are mediated via file
# access rules"), and unix create, send and receive (peer unconfined).
# Exit 0 when everything is allowed, 1 when something is not, 2 on
# usage.
#
# Rules are matched the way AppArmor does: '*' any characters but '/',
# '**' any characters including '/', '?' one character but '/', '{a,b}'
# alternation (nested), '[...]' a class, @{VAR} every value of the
# variable; deny rules win over allow rules; among exec rules an exact
# path wins over globs, and two globs giving different modes are a
# conflict (the parser refuses those). owner-qualified rules are not
# counted (conservative: they hold only for files the caller owns).
import re
import sys

PERM_RE = re.compile(r"^[rwamlkixuUpPcCD]+$")
QUALS = ("audit", "deny", "owner", "allow", "file")


def strip_comments(text):
    out = []
    for line in text.splitlines():
        q = False
        for i, c in enumerate(line):
            if c == '"':
                q = not q
            elif c == "#" and not q:
                line = line[:i]
                break
        out.append(line)
    return "\n".join(out)


def variables(text):
    vals = {}
    for m in re.finditer(r"^\s*@\{(\w+)\}\s*(\+?=)\s*(.*?)\s*$", text,
                         re.M):
        name, op, rest = m.groups()
        words = re.findall(r'"([^"]*)"|(\S+)', rest)
        words = [a or b for a, b in words]
        if op == "=":
            vals[name] = words
        else:
            vals.setdefault(name, []).extend(words)
    return vals


def expand(s, vals, depth=0):
    """s with each @{VAR} as an alternation of its values; None if a
    variable is unknown."""
    if depth > 20:
        return None
    out = ""
    pos = 0
    for m in re.finditer(r"@\{(\w+)\}", s):
        name = m.group(1)
        if name not in vals:
            return None
        alts = []
        for v in vals[name]:
            e = expand(v, vals, depth + 1)
            if e is None:
                return None
            alts.append(e)
        out += s[pos:m.start()] + "{" + ",".join(alts) + "}"
        pos = m.end()
    return out + s[pos:]


def glob_re(g):
    """AppArmor glob -> Python regex (anchored by the caller)."""
    out = ""
    i = 0
    depth = 0
    while i < len(g):
        c = g[i]
        if c == "*":
            if g[i:i + 2] == "**":
                out += ".*"
                i += 2
                continue
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "{":
            out += "(?:"
            depth += 1
        elif c == "}" and depth:
            out += ")"
            depth -= 1
        elif c == "," and depth:
            out += "|"
        elif c == "[":
            j = g.index("]", i + 1)
            body = g[i + 1:j]
            neg = body.startswith("^")
            if neg:
                body = body[1:]
            out += "[" + ("^" if neg else "") + body.replace("\\", "\\\\") + "]"
            i = j
        elif c == "\\" and i + 1 < len(g):
            out += re.escape(g[i + 1])
            i += 1
        else:
            out += re.escape(c)
        i += 1
    return out


def is_glob(g):
    return bool(re.search(r"[*?\[{]", g))


def statements(text):
    """(blocks, statement) pairs: blocks is the list of enclosing block
    headers. A '{' after a space and before one opens a block; other
    braces are the glob's alternation."""
    stack = []
    cur = ""
    gdepth = 0
    pdepth = 0
    inq = False
    n = len(text)
    for i, c in enumerate(text):
        if c == '"':
            inq = not inq
        elif inq:
            pass
        elif c == "{":
            prev = text[i - 1] if i else " "
            nxt = text[i + 1] if i + 1 < n else " "
            if gdepth == 0 and pdepth == 0 and prev.isspace() and \
                    nxt.isspace():
                lines = [x for x in cur.strip().splitlines() if x.strip()]
                stack.append(lines[-1].strip() if lines else "")
                cur = ""
                continue
            gdepth += 1
        elif c == "}":
            if gdepth:
                gdepth -= 1
            else:
                cur = ""
                if stack:
                    stack.pop()
                continue
        elif c == "(":
            pdepth += 1
        elif c == ")":
            pdepth -= 1
        elif c == "," and gdepth == 0 and pdepth == 0:
            yield list(stack), " ".join(cur.split())
            cur = ""
            continue
        cur += c


def header_name(h):
    w = h.split()
    if w and w[0] == "profile" and len(w) > 1:
        return w[1]
    return w[0] if w else ""


class FileRule:
    def __init__(self, quals, path, perms, text):
        self.deny = "deny" in quals
        self.owner = "owner" in quals
        self.path = path
        self.perms = perms
        self.text = text


class UnixRule:
    def __init__(self, deny, perms, conds, peer, text):
        self.deny = deny
        self.perms = perms	# None: every permission
        self.conds = conds
        self.peer = peer
        self.text = text


UNIX_ALL = ("create", "bind", "listen", "accept", "connect", "send",
            "receive", "getattr", "setattr", "setopt", "getopt",
            "shutdown")
UNIX_ALIAS = {"r": ("receive",), "w": ("send",), "rw": ("send", "receive"),
              "read": ("receive",), "write": ("send",)}


def parse_conds(s):
    return dict(re.findall(r"(\w+)=(\"[^\"]*\"|\([^)]*\)|[^\s,()]+)", s))


def parse(stmts, profile, vals):
    files, unix = [], []
    for blocks, s in stmts:
        if len(blocks) != 1 or header_name(blocks[0]) != profile or not s:
            continue
        w = s.split()
        quals = []
        while w and w[0] in QUALS:
            quals.append(w.pop(0))
        if not w:
            continue
        if w[0] == "unix" or (w[0] == "network" and
                              (len(w) == 1 or w[1] == "unix")):
            rest = s.split(w[0], 1)[1]
            peer = {}
            m = re.search(r"peer=\(([^)]*)\)", rest)
            if m:
                peer = parse_conds(m.group(1))
                rest = rest[:m.start()] + rest[m.end():]
            perms = None
            if w[0] == "unix":
                m = re.match(r"\s*\(([^)]*)\)", rest)
                if m:
                    perms = set(re.split(r"[\s,]+", m.group(1).strip()))
                    rest = rest[m.end():]
                else:
                    m = re.match(r"\s*([a-z]+)(?=\s|$)", rest)
                    if m and "=" not in m.group(1):
                        perms = {m.group(1)}
                        rest = rest[m.end():]
            else:
                # network unix [stream]: every unix permission of that
                # type (apparmor.d(5), fine grained mediation)
                t = w[2] if len(w) > 2 else None
                rest = "type=" + t if t else ""
            if perms is not None:
                ps = set()
                for p in perms:
                    ps.update(UNIX_ALIAS.get(p, (p,)))
                perms = ps
            unix.append(UnixRule("deny" in quals, perms, parse_conds(rest),
                                 peer, s))
            continue
        if len(w) >= 2 and (w[0].startswith("/") or w[0].startswith("@{")
                            or w[0].startswith('"/')) and PERM_RE.match(w[1]):
            path, perms = w[0], w[1]
        elif len(w) >= 2 and PERM_RE.match(w[0]) and \
                (w[1].startswith("/") or w[1].startswith("@{")):
            path, perms = w[1], w[0]
        else:
            continue
        path = expand(path.strip('"'), vals)
        if path is None:
            continue
        files.append(FileRule(quals, path, perms, s))
    return files, unix


def matches(rule_path, path):
    return re.fullmatch(glob_re(rule_path), path) is not None


def exec_mode(perms):
    """The transition an exec rule's permissions ask for, and what it
    gives a program with no profile of its own."""
    x = "".join(c for c in perms if c in "iuUpPcCx")
    k = x.lower()
    if k == "ix":
        return x, "inherit"
    if k == "ux":
        return x, "unconfined"
    if k == "pix" or k == "cix":
        return x, "inherit"
    if k == "pux" or k == "cux":
        return x, "unconfined"
    return x, None	# px, cx: a profile for it is needed; none is shipped


def file_allowed(files, path, perm):
    """(allowed, the allowing rule's text)"""
    hit = None
    for r in files:
        if not matches(r.path, path):
            continue
        if r.deny and perm in r.perms:
            return False, "denied by '%s'" % r.text
        if not r.deny and not r.owner and perm in r.perms and hit is None:
            hit = r.text
    return hit is not None, hit


def unix_allowed(unix, perm):
    """perm on a client's unbound stream socket whose peer is unconfined"""
    hit = None
    for r in unix:
        if r.perms is not None and perm not in r.perms:
            continue
        t = r.conds.get("type")
        if t and t != "stream":
            continue
        a = r.conds.get("addr")
        if a and a != "none":
            continue
        lbl = r.peer.get("label")
        if perm == "create" and r.peer:
            continue	# a socket being made has no peer yet
        if lbl and not matches(lbl.strip('"'), "unconfined"):
            continue
        if r.peer.get("addr"):
            continue
        if r.deny:
            return False, "denied by '%s'" % r.text
        if hit is None:
            hit = r.text
    return hit is not None, hit


def main(argv):
    if len(argv) < 4:
        sys.stderr.write("usage: aaexec.py PREPROCESSED PROFILE PATH "
                         "[--read FILE]... [--map FILE]... "
                         "[--socket SOCKET]\n")
        return 2
    pre, profile, target = argv[1:4]
    reads, maps, sock = [], [], None
    i = 4
    while i < len(argv):
        if argv[i] == "--read" and i + 1 < len(argv):
            reads.append(argv[i + 1])
        elif argv[i] == "--map" and i + 1 < len(argv):
            maps.append(argv[i + 1])
        elif argv[i] == "--socket" and i + 1 < len(argv):
            sock = argv[i + 1]
        else:
            sys.stderr.write("aaexec.py: unknown argument '%s'\n" % argv[i])
            return 2
        i += 2
    with open(pre) as f:
        text = strip_comments(f.read())
    vals = variables(text)
    stmts = list(statements(text))
    if not any(len(b) == 1 and header_name(b[0]) == profile
               for b, _ in stmts):
        print("no profile '%s' in %s" % (profile, pre))
        return 1
    files, unix = parse(stmts, profile, vals)
    ok = True
    xr = [r for r in files if "x" in r.perms and matches(r.path, target)]
    deny = [r for r in xr if r.deny]
    allow = [r for r in xr if not r.deny and not r.owner]
    if deny:
        print("exec %s: denied by '%s'" % (target, deny[0].text))
        return 1
    if not allow:
        print("exec %s: no exec rule matches" % target)
        return 1
    exact = [r for r in allow if not is_glob(r.path)]
    use = exact or allow
    modes = {exec_mode(r.perms) for r in use}
    if len(modes) > 1:
        print("exec %s: conflicting exec rules: %s" % (
            target, "; ".join("'%s'" % r.text for r in use)))
        return 1
    (x, mode), = modes
    print("exec %s: '%s' -> %s (%s)" % (target, use[0].text,
                                       mode or "denied", x))
    if mode is None:
        print("  %s needs a profile for %s, and none is shipped" % (x,
                                                                     target))
        return 1
    if mode != "inherit":
        return 0
    for path, perm, what in [(p, "r", "read") for p in reads] + \
            [(p, "m", "mmap") for p in maps] + \
            ([(sock, "w", "connect (file write)")] if sock else []):
        a, why = file_allowed(files, path, perm)
        if a:
            print("  %s %s: '%s'" % (what, path, why))
        else:
            ok = False
            print("  %s %s: not allowed%s" % (what, path,
                                              ": " + why if why else ""))
    if sock:
        for perm in ("create", "send", "receive"):
            a, why = unix_allowed(unix, perm)
            if a:
                print("  unix %s: '%s'" % (perm, why))
            else:
                ok = False
                print("  unix %s: not allowed%s" % (
                    perm, ": " + why if why else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
