#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
"""ABI check generator for propel's public headers (stdlib only).

Three subcommands; abi_compare.sh drives them:

  generate [--ref DIR] [-o FILE]
      Read the reference libfabric headers (DIR is the rdma/ folder,
      default /usr/include/rdma), discover their declarations with
      clang's JSON AST and their macros with `clang -E -dD`, and write one
      C program that prints one line per ABI item.  Candidate items are
      test-compiled against the reference first; those that cannot
      compile there (e.g. a macro that is not an integer constant
      expression) are dropped, so the program is warning-free against
      the reference by construction.

  build --cc CC -o EXE SRC [-- CFLAGS...]
      Compile SRC; every compiler error that falls inside an item's block
      turns that item off (-include of a file of ABI_SKIP_<n> macros) and
      the compile is retried, so one missing name costs one line of the
      report instead of the whole run.  Exit 0 when nothing was turned
      off, 1 when some items were (the errors are printed), 2 when the
      errors cannot be pinned to items (e.g. a broken header).

  compare REF_OUT OUR_OUT
      Compare the two programs' outputs key by key and report the
      differences grouped by header.  Exit 0 only if there are none.

Every output line is "<header> <kind> <name>: <value>"; the text before
": " is the key.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# The 14 public headers the ABI promise covers (fi_ext_psm2.h and the
# rdma-core verbs headers in the same folder are deliberately absent).
HEADERS = [
    "fabric.h", "fi_errno.h", "fi_domain.h", "fi_eq.h", "fi_trigger.h",
    "fi_endpoint.h", "fi_cm.h", "fi_rma.h", "fi_tagged.h", "fi_atomic.h",
    "fi_collective.h", "fi_ext.h", "providers/fi_prov.h",
    "providers/fi_log.h",
]

DEFAULT_REF = "/usr/include/rdma"
# Directories the compilers search anyway; passing them with -isystem
# would only reorder the system search path.
SYSTEM_ROOTS = {"/usr/include", "/usr/local/include"}
STD = "-std=gnu11"


def die(msg, code=2):
    sys.stderr.write("gen_abi_check: %s\n" % msg)
    sys.exit(code)


def hdr_macro(h):
    """Name of the -D that tells the program a header is absent."""
    return "ABI_NO_rdma_" + re.sub(r"\W", "_", h)


def inc_flags(root):
    return [] if os.path.realpath(root) in SYSTEM_ROOTS else ["-isystem", root]


# ---------------------------------------------------------------- discovery

class LocTracker:
    """clang's JSON dump omits "file" when it equals the previously
    printed location's file, so the current file must be tracked while
    walking the dump in document order (includedFrom is not a location)."""

    def __init__(self):
        self.cur = None

    def loc(self, loc):
        if "spellingLoc" in loc:
            self.loc(loc["spellingLoc"])
            return self.loc(loc["expansionLoc"])
        if "file" in loc:
            self.cur = loc["file"]
        return self.cur

    def walk(self, obj):
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k == "includedFrom":
                    continue
                if k == "file" and isinstance(v, str):
                    self.cur = v
                else:
                    self.walk(v)
        elif isinstance(obj, list):
            for v in obj:
                self.walk(v)


def is_anon_type(qt):
    return "(unnamed" in qt or "(anonymous" in qt


class Discovery:
    def __init__(self, ref):
        self.ref = os.path.realpath(ref)
        self.root = os.path.dirname(self.ref)
        self.files = {}                      # realpath -> header name
        for h in HEADERS:
            p = os.path.join(self.ref, h)
            if not os.path.isfile(p):
                die("reference header %s not found" % p, 77)
            self.files[os.path.realpath(p)] = h
        self.records = {}    # "struct x" -> dict(header, node or None)
        self.typedefs = {}   # name -> (header, qualType)
        self.enums = []      # (header, enum label, [constant names])
        self.funcs = {}      # name -> (header, qualType, is_static)
        self.macros = []     # (header, name, is_function_like, body)

    def tu(self):
        return "".join("#include <rdma/%s>\n" % h for h in HEADERS)

    def run_clang(self, clang, extra):
        cmd = [clang, STD] + inc_flags(self.root) + extra + ["-x", "c", "-"]
        p = subprocess.run(cmd, input=self.tu(), capture_output=True,
                           text=True)
        if p.returncode != 0:
            die("clang failed on the reference headers:\n" + p.stderr)
        return p.stdout

    def header_of(self, path):
        if path is None:
            return None
        return self.files.get(os.path.realpath(path))

    def discover(self, clang):
        ast = json.loads(self.run_clang(
            clang, ["-fsyntax-only", "-Xclang", "-ast-dump=json"]))
        trk = LocTracker()
        self._walk_decls(ast.get("inner", []), trk)
        self._macros(self.run_clang(clang, ["-E", "-dD"]))

    def _walk_decls(self, nodes, trk):
        for n in nodes:
            hdr = self.header_of(trk.loc(n.get("loc", {})))
            # Keep the tracker in step with everything printed after loc.
            for k, v in n.items():
                if k not in ("loc", "inner"):
                    trk.walk(v)
            kind = n.get("kind")
            if hdr and not n.get("isImplicit"):
                self._decl(n, kind, hdr)
            if "inner" in n:
                # Named records/enums nested in a struct are file scope in C.
                self._walk_decls(n["inner"], trk)

    def _decl(self, n, kind, hdr):
        name = n.get("name")
        if kind == "RecordDecl" and name:
            key = "%s %s" % (n.get("tagUsed", "struct"), name)
            ent = self.records.setdefault(key, {"header": hdr, "node": None})
            if n.get("completeDefinition"):
                ent["header"], ent["node"] = hdr, n
        elif kind == "TypedefDecl" and name:
            self.typedefs.setdefault(name, (hdr, n["type"]["qualType"]))
        elif kind == "EnumDecl":
            consts = [c["name"] for c in n.get("inner", [])
                      if c.get("kind") == "EnumConstantDecl"]
            if consts:
                self.enums.append((hdr, name, consts))
        elif kind == "FunctionDecl" and name:
            if name not in self.funcs:
                self.funcs[name] = (hdr, n["type"]["qualType"],
                                    n.get("storageClass") == "static")

    def _guards(self):
        """Include guards: the `#ifndef X` + `#define X` opening a file."""
        out = set()
        for path in self.files:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            m = re.search(r"^\s*#\s*ifndef\s+(\w+)\s*\n\s*#\s*define\s+(\w+)",
                          text, re.M)
            if m and m.group(1) == m.group(2):
                out.add(m.group(1))
        return out

    def _macros(self, text):
        guards = self._guards()
        cur = None
        seen = set()
        for line in text.splitlines():
            m = re.match(r'#\s*\d+\s+"(.*)"', line)
            if m:
                cur = self.header_of(m.group(1))
                continue
            m = re.match(r"#define\s+(\w+)(\()?\s*(.*)$", line)
            if not m or not cur:
                continue
            name, fl, body = m.group(1), bool(m.group(2)), m.group(3)
            if name in guards or name in seen:
                continue
            seen.add(name)
            self.macros.append((cur, name, fl, body.strip()))


# ---------------------------------------------------------------- items

class Item:
    """One printed line.  `decl` is file-scope C, `body` the statements of
    the item's print function.  Items sharing a `group` are alternatives
    for one key; the first that compiles against the reference is kept."""

    def __init__(self, header, kind, name, body, decl="", group=None):
        self.key = "%s %s %s" % (header, kind, name)
        self.header = header
        self.body = body
        self.decl = decl
        self.group = group


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def make_items(d):
    items = []

    for h in HEADERS:
        body = ("#ifdef %s\n\tabi_chk_line(%s, \"MISSING\");\n#else\n"
                "\tabi_chk_line(%s, \"present\");\n#endif"
                % (hdr_macro(h), "@KEY@", "@KEY@"))
        items.append(Item(h, "header", "<rdma/%s>" % h, body))

    # Structs and unions: size/alignment, then every field.
    for tag, ent in sorted(d.records.items()):
        node = ent["node"]
        if node is None:
            continue        # only ever declared, never defined: no layout
        h = ent["header"]
        items.append(Item(h, "type", tag,
                          "\tabi_chk_size(@KEY@, sizeof(%s), _Alignof(%s));"
                          % (tag, tag)))
        items.extend(field_items(h, tag, node, ""))

    for name, (h, qt) in sorted(d.typedefs.items()):
        tc = type_check("%s" % name, qt)
        items.append(Item(h, "typedef", name,
                          "\tabi_chk_tsize(@KEY@, sizeof(%s), _Alignof(%s), %s);"
                          % (name, name, tc)))

    for h, name, consts in d.enums:
        if name:
            items.append(Item(h, "type", "enum " + name,
                              "\tabi_chk_size(@KEY@, sizeof(enum %s), "
                              "_Alignof(enum %s));" % (name, name)))
        # Enumerators are file-scope ints; the enum is named for the reader.
        for c in consts:
            items.append(Item(h, "enumerator",
                              "%s.%s" % (name or "(anonymous)", c),
                              "\tABI_CHK_INT(@KEY@, %s);" % c))

    for name, (h, qt, static) in sorted(d.funcs.items()):
        # typeof(name) fails if ours does not declare it (or only has a
        # macro); redeclaring with the reference's exact type is an error
        # on a mismatched signature and, for `static`, on extern linkage.
        decl = ("typedef __typeof__(%s) abi_chk_prev_@N@;\n"
                "typedef __typeof__(%s) abi_chk_fn_@N@;\n"
                "%s abi_chk_fn_@N@ %s;"
                % (name, qt, "static inline" if static else "extern", name))
        items.append(Item(h, "func", name,
                          "\tabi_chk_line(@KEY@, %s);"
                          % cstr("static inline " + qt if static
                                 else "extern " + qt), decl))

    for h, name, fl, body in d.macros:
        defined = ("#ifdef {n}\n\tabi_chk_line(@KEY@, \"defined\");\n#else\n"
                   "\tabi_chk_line(@KEY@, \"NOT DEFINED\");\n#endif"
                   ).format(n=name)
        if fl:
            items.append(Item(h, "macro", name + "()", defined))
            continue
        if not body:
            items.append(Item(h, "macro", name, defined))
            continue
        grp = "macro " + name
        # Integer constant expression: `& 0` rejects floats, pointers and
        # strings; _Static_assert rejects anything not constant.
        items.append(Item(h, "macro", name,
                          "#ifdef {n}\n\tABI_CHK_INT(@KEY@, {n});\n#else\n"
                          "\tabi_chk_line(@KEY@, \"NOT DEFINED\");\n#endif"
                          .format(n=name),
                          "#ifdef {n}\n_Static_assert((({n}) & 0) == 0, "
                          "\"{n} is an integer constant\");\n#endif"
                          .format(n=name), grp))
        # String literal: only a literal concatenates with "".
        items.append(Item(h, "macro", name,
                          "#ifdef {n}\n\tabi_chk_str(@KEY@, \"\" {n}, "
                          "sizeof({n}));\n#else\n"
                          "\tabi_chk_line(@KEY@, \"NOT DEFINED\");\n#endif"
                          .format(n=name), "", grp))
        items.append(Item(h, "macro", name, defined, "", grp))
    return items


def type_check(expr_type, qt):
    """C expression: the reference type text if `expr_type` (a type name
    or __typeof__) is compatible with it, else a loud marker."""
    if is_anon_type(qt):
        return '"(anonymous)"'
    return ("(__builtin_types_compatible_p(%s, %s) ? %s : %s)"
            % (expr_type, qt, cstr(qt), cstr("INCOMPATIBLE, ref " + qt)))


def field_items(h, tag, node, prefix):
    """Fields of a record; members of anonymous type are recursed into so
    their own fields are checked through offsetof's member designator."""
    out = []
    anon = None
    for f in node.get("inner", []):
        k = f.get("kind")
        if k == "RecordDecl" and not f.get("name"):
            anon = f
            continue
        if k != "FieldDecl":
            continue
        qt = f["type"]["qualType"]
        name = f.get("name")
        if not name:
            # C11 anonymous struct/union member: its fields belong to us.
            if anon is not None:
                out.extend(field_items(h, tag, anon, prefix))
            continue
        path = prefix + name
        label = "%s.%s" % (tag, path)
        if f.get("isBitfield"):
            out.append(Item(h, "field", label,
                            "\tabi_chk_line(@KEY@, \"bitfield (not checked)\");"))
            continue
        member = "((%s *)0)->%s" % (tag, path)
        if re.search(r"\[\]$", qt):
            # Flexible array member: no size of its own.
            body = ("\tabi_chk_field(@KEY@, offsetof(%s, %s), (size_t)-1, %s);"
                    % (tag, path, type_check("__typeof__(%s)" % member, qt)))
        else:
            body = ("\tabi_chk_field(@KEY@, offsetof(%s, %s), sizeof(%s), %s);"
                    % (tag, path, member,
                       type_check("__typeof__(%s)" % member, qt)))
        out.append(Item(h, "field", label, body))
        if is_anon_type(qt) and anon is not None:
            sub = path + ("[0]" if re.search(r"\[\d+\]$", qt) else "")
            out.extend(field_items(h, tag, anon, sub + "."))
    return out


# ---------------------------------------------------------------- emission

PROLOGUE = r"""/*
 * Generated by tests/abi/gen_abi_check.py from %(ref)s.
 * Do not edit; it is regenerated at test time.  Each item prints one
 * "<header> <kind> <name>: <value>" line; an item whose block does not
 * compile is turned off with -DABI_SKIP_<n> and prints DOES NOT COMPILE.
 * Items: %(count)d.%(dropped)s
 */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Inspecting deprecated fields/functions is not using them. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

%(includes)s
/* The type an integer constant has, so width/signedness changes show. */
#define ABI_CHK_TYPENAME(x) _Generic((x), \
	_Bool: "_Bool", char: "char", signed char: "signed char", \
	unsigned char: "unsigned char", short: "short", \
	unsigned short: "unsigned short", int: "int", \
	unsigned int: "unsigned int", long: "long", \
	unsigned long: "unsigned long", long long: "long long", \
	unsigned long long: "unsigned long long", default: "other")
#define ABI_CHK_INT(key, x) abi_chk_int((key), (long long)(x), \
	(unsigned long long)(x), sizeof(x), ABI_CHK_TYPENAME(x))

__attribute__((unused)) static void abi_chk_line(const char *key, const char *v)
{
	printf("%%s: %%s\n", key, v);
}

__attribute__((unused)) static void abi_chk_int(const char *key, long long s,
	unsigned long long u, size_t size, const char *type)
{
	printf("%%s: %%lld / %%llu (0x%%llx) size=%%zu type=%%s\n",
	       key, s, u, u, size, type);
}

__attribute__((unused)) static void abi_chk_str(const char *key, const char *s,
	size_t size)
{
	printf("%%s: \"", key);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			putchar(c);
		else
			printf("\\x%%02x", c);
	}
	printf("\" size=%%zu\n", size);
}

__attribute__((unused)) static void abi_chk_size(const char *key, size_t size,
	size_t align)
{
	printf("%%s: size=%%zu align=%%zu\n", key, size, align);
}

__attribute__((unused)) static void abi_chk_tsize(const char *key, size_t size,
	size_t align, const char *type)
{
	printf("%%s: size=%%zu align=%%zu type=%%s\n", key, size, align, type);
}

__attribute__((unused)) static void abi_chk_field(const char *key,
	size_t off, size_t size, const char *type)
{
	if (size == (size_t)-1)
		printf("%%s: offset=%%zu flexible type=%%s\n", key, off, type);
	else
		printf("%%s: offset=%%zu size=%%zu type=%%s\n", key, off, size, type);
}

"""


def emit(items, ref, dropped_note=""):
    includes = "".join(
        "#ifndef %s\n#include <rdma/%s>\n#endif\n" % (hdr_macro(h), h)
        for h in HEADERS)
    out = [PROLOGUE % {"ref": ref, "count": len(items),
                       "dropped": dropped_note, "includes": includes}]
    for n, it in enumerate(items):
        body = it.body.replace("@KEY@", cstr(it.key))
        decl = it.decl.replace("@N@", str(n))
        out.append("/* item %d: %s */\n#ifndef ABI_SKIP_%d\n" % (n, it.key, n))
        if decl:
            out.append(decl + "\n")
        out.append("static void abi_chk_%d(void)\n{\n%s\n}\n" % (n, body))
        out.append("#else\nstatic void abi_chk_%d(void)\n{\n"
                   "\tabi_chk_line(%s, \"DOES NOT COMPILE\");\n}\n"
                   "#endif /* item %d */\n\n" % (n, cstr(it.key), n))
    out.append("int main(void)\n{\n")
    out.extend("\tabi_chk_%d();\n" % n for n in range(len(items)))
    out.append("\treturn 0;\n}\n")
    return "".join(out)


# ---------------------------------------------------------------- building

DIAG = re.compile(r"^(.*?):(\d+):(?:\d+:)? (fatal error|error|warning|note): ")


def item_ranges(src_text):
    """Line ranges (1-based, inclusive) of each item's compiled branch."""
    ranges = []
    start = None
    for ln, line in enumerate(src_text.splitlines(), 1):
        m = re.match(r"#ifndef ABI_SKIP_(\d+)$", line)
        if m:
            start = (int(m.group(1)), ln)
        elif line == "#else" and start:
            ranges.append((start[1], ln, start[0]))
            start = None
    return ranges


def map_errors(stderr, src, ranges):
    """Item numbers hit by errors, and error text not inside any item."""
    src_real = os.path.realpath(src)
    hit, unmapped = set(), []
    blocks = []
    for line in stderr.splitlines():
        m = DIAG.match(line)
        if not m:
            continue
        if m.group(3) in ("error", "fatal error"):
            blocks.append([line, []])
        elif m.group(3) == "note" and blocks:
            blocks[-1][1].append(m)
        if m.group(3) in ("error", "fatal error"):
            blocks[-1][1].append(m)

    def lookup(ln):
        for lo, hi, n in ranges:
            if lo <= ln <= hi:
                return n
        return None

    for text, locs in blocks:
        n = None
        for m in locs:
            p = m.group(1)
            if p == src or os.path.realpath(p) == src_real:
                n = lookup(int(m.group(2)))
                if n is not None:
                    break
        if n is None:
            unmapped.append(text)
        else:
            hit.add(n)
    return hit, unmapped


def is_clang(cc):
    p = subprocess.run(cc + ["-dM", "-E", "-x", "c", "/dev/null"],
                       capture_output=True, text=True)
    return "__clang__" in p.stdout


def compile_skipping(cc, src, out, cflags, log=None, max_rounds=25):
    """Compile, turning off items that fail, until it compiles.
    Returns (skipped set, all error text, unmapped error lines); the
    successful compile's warnings, if any, are appended to `log`."""
    with open(src) as f:
        ranges = item_ranges(f.read())
    extra = ["-ferror-limit=0"] if is_clang(cc) else ["-fmax-errors=0"]
    skipped = set()
    errors = []
    fd, skipfile = tempfile.mkstemp(suffix=".h", prefix="abi_skip_")
    os.close(fd)
    try:
        for _ in range(max_rounds):
            with open(skipfile, "w") as f:
                f.writelines("#define ABI_SKIP_%d 1\n" % n
                             for n in sorted(skipped))
            cmd = (cc + cflags + extra + ["-include", skipfile, src]
                   + (["-o", out] if out else ["-fsyntax-only"]))
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode == 0:
                if log is not None and p.stderr:
                    log.append(p.stderr)
                return skipped, errors, []
            errors.append(p.stderr)
            hit, unmapped = map_errors(p.stderr, src, ranges)
            hit -= skipped
            if unmapped or not hit:
                return skipped, errors, unmapped or ["(no mappable error)"]
            skipped |= hit
        return skipped, errors, ["(gave up after %d rounds)" % max_rounds]
    finally:
        os.unlink(skipfile)


# ---------------------------------------------------------------- commands

def cmd_generate(argv):
    ap = argparse.ArgumentParser(prog="gen_abi_check.py generate")
    ap.add_argument("--ref", default=DEFAULT_REF,
                    help="reference rdma/ header folder")
    ap.add_argument("-o", "--output", default="abi_check.c")
    ap.add_argument("--clang", default=os.environ.get("CLANG", "clang"))
    a = ap.parse_args(argv)

    d = Discovery(a.ref)
    d.discover(a.clang)
    cands = make_items(d)
    # Sorted by key (stable, so a macro's alternatives keep their order).
    cands.sort(key=lambda it: it.key)

    # Probe against the reference: -pedantic-errors makes "not an integer
    # constant expression" a hard error rather than a GNU folding.
    tmpdir = tempfile.mkdtemp(prefix="abi_gen_")
    try:
        probe = os.path.join(tmpdir, "probe.c")
        with open(probe, "w") as f:
            f.write(emit(cands, d.ref))
        skipped, errs, unmapped = compile_skipping(
            [a.clang], probe, None,
            [STD, "-Wall", "-Wextra", "-pedantic-errors"]
            + inc_flags(d.root))
        if unmapped:
            die("probe compile against the reference failed:\n"
                + "\n".join(errs[-1:]))
    finally:
        for fn in os.listdir(tmpdir):
            os.unlink(os.path.join(tmpdir, fn))
        os.rmdir(tmpdir)

    items, taken, dropped, keys = [], set(), [], set()
    for n, it in enumerate(cands):
        if it.group:
            if n in skipped or it.group in taken:
                continue
            taken.add(it.group)
        elif n in skipped:
            dropped.append(it.key)
            continue
        if it.key in keys:
            # One line per key keeps the comparison unambiguous.
            sys.stderr.write("gen_abi_check: warning: duplicate item %s "
                             "ignored\n" % it.key)
            continue
        keys.add(it.key)
        items.append(it)
    note = ""
    if dropped:
        # Not expected: report so the generator can be taught.
        sys.stderr.write("gen_abi_check: warning: %d item(s) do not compile "
                         "against the reference and were dropped:\n  %s\n"
                         % (len(dropped), "\n  ".join(dropped)))
        note = ("\n * Dropped (do not compile against the reference):\n"
                + "".join(" *   %s\n" % k for k in dropped) + " *")
    text = emit(items, d.ref, note)
    tmp = a.output + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, a.output)
    kinds = {}
    for it in items:
        k = it.key.split(" ")[1]
        kinds[k] = kinds.get(k, 0) + 1
    sys.stderr.write("gen_abi_check: %d items (%s) -> %s\n" % (
        len(items), ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
        a.output))
    return 0


def cmd_build(argv):
    ap = argparse.ArgumentParser(prog="gen_abi_check.py build")
    ap.add_argument("--cc", required=True,
                    help="compiler command (split on spaces)")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("src")
    ap.add_argument("cflags", nargs="*")
    a = ap.parse_args(argv)
    cc = a.cc.split()
    warnings = []
    skipped, errs, unmapped = compile_skipping(cc, a.src, a.output, a.cflags,
                                               warnings)
    if warnings:
        sys.stdout.write("build: compiler warnings:\n" + warnings[0])
    if errs:
        sys.stdout.write(errs[0])
        for e in errs[1:]:
            sys.stdout.write("--- after turning off the items above:\n" + e)
    if unmapped:
        sys.stdout.write("build: errors outside any check item (a header "
                         "itself does not compile):\n  "
                         + "\n  ".join(unmapped) + "\n")
        return 2
    if skipped:
        sys.stdout.write("build: %d item(s) do not compile and were turned "
                         "off\n" % len(skipped))
        return 1
    return 0


def read_lines(path):
    out = {}
    order = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            key, sep, val = line.partition(": ")
            if not sep:
                key, val = line, ""
            if key not in out:
                order.append(key)
            out[key] = val
    return out, order


def cmd_compare(argv):
    if len(argv) != 2:
        die("usage: gen_abi_check.py compare REF_OUT OUR_OUT")
    ref, order = read_lines(argv[0])
    ours, _ = read_lines(argv[1])
    diffs = {}
    for key in order:
        if ours.get(key) != ref[key]:
            hdr = key.split(" ", 1)[0]
            diffs.setdefault(hdr, []).append(
                (key, ref[key], ours.get(key, "(no line printed)")))
    extra = [k for k in ours if k not in ref]
    ndiff = sum(len(v) for v in diffs.values()) + len(extra)
    print("ABI check: %d items compared, %d differ" % (len(order), ndiff))
    for hdr in [h for h in HEADERS if h in diffs] + sorted(
            set(diffs) - set(HEADERS)):
        print("== %s (%d)" % (hdr, len(diffs[hdr])))
        for key, r, o in diffs[hdr]:
            print("  %s\n      ref:  %s\n      ours: %s"
                  % (key.split(" ", 1)[1], r, o))
    if extra:
        print("== lines only in ours (%d)" % len(extra))
        for k in extra:
            print("  %s: %s" % (k, ours[k]))
    return 0 if ndiff == 0 else 1


def main():
    argv = sys.argv[1:]
    if argv and argv[0] in ("build", "compare", "generate"):
        cmd, argv = argv[0], argv[1:]
    else:
        cmd = "generate"
    return {"generate": cmd_generate, "build": cmd_build,
            "compare": cmd_compare}[cmd](argv)


if __name__ == "__main__":
    sys.exit(main())
