#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks the machine-readable output of wp-panel-nettune against the schema
and the metric names of its man page (JSON OUTPUT, PROMETHEUS METRICS).

usage: output-check.py detect JSON_FILE
       output-check.py status JSON_FILE PROM_FILE EXIT_STATUS

JSON is parsed with Python's json module, strictly (one object, nothing
after it, no NaN); Prometheus' text format line by line. For status, the
two must state the same facts, and the exit status the command returned
must be the one both report. Prints one line per finding; exit status 1 if
there is any.
"""
import json
import re
import sys

findings = []


def finding(text):
    findings.append(text)


def no_constant(name):
    raise ValueError("not JSON: " + name)


def load_json(path):
    with open(path, "rb") as f:
        data = f.read()
    if not data.endswith(b"\n") or data.count(b"\n") != 1:
        finding(f"{path}: not one line ended by a newline")
    text = data.decode("utf-8")  # raises on invalid UTF-8
    return json.loads(text, parse_constant=no_constant)


STR, NUM, BOOL, NULL = str, int, bool, type(None)
COMMON = {"schema": NUM, "command": STR, "version": STR, "root": STR,
          "environment": STR, "container": (STR, NULL), "kernel": STR, "cpus": NUM}
DETECT = {**COMMON, "memory_mib": NUM, "mem_total_kib": NUM, "modules": dict,
          "proc_sys_net_writable": BOOL}
STATUS = {**COMMON, "fragment": dict, "keys": list, "modules": list,
          "qdiscs": (list, NULL), "qdiscs_error": (STR, NULL), "qdisc_pending": BOOL,
          "boot_unknown": BOOL, "conditions": list, "verdict": STR, "exit_status": NUM}
FRAGMENT = {"path": STR, "present": BOOL, "cpus": (NUM, NULL), "cpus_changed": BOOL,
            "cpus_change": (list, NULL), "malformed": BOOL, "congestion": (STR, NULL),
            "base": (STR, NULL), "edited": BOOL, "ucf_left": list}
CPU_CHANGE = {"key": STR, "then": (STR, NULL), "now": (STR, NULL)}
KEY = {"key": STR, "wanted": (STR, NULL), "profile": (STR, NULL), "live": (STR, NULL),
       "live_error": (STR, NULL), "optional": BOOL, "boot_file": (STR, NULL),
       "boot_value": (STR, NULL), "state": STR, "alarm": BOOL}
MODULE = {"module": STR, "state": STR, "listed": BOOL, "unloadable": BOOL}
QDISC = {"interface": STR, "root": (STR, NULL), "leaves": list}
MODSTATES = {"builtin", "module", "loaded", "blacklisted", "missing"}
# The states and conditions of the man page, in its order; True: an alarm.
KEY_STATES = {"in-effect": False, "overridden": False, "edited": False,
              "left-alone": False, "not-in-namespace": False,
              "read-only-in-namespace": False, "outdated": True, "missing": True,
              "drift": True}
CONDITIONS = {"not-tuned": True, "malformed": True, "drift": True, "outdated": True,
              "cpus-changed": True, "module-unloadable": True, "boot-unknown": True,
              "overridden": False, "edited": False, "left-alone": False,
              "congestion-chosen": False}
VERDICTS = {"in-effect": 0, "chosen": 0, "alarm": 3}


def members(where, obj, spec):
    """obj has exactly the members of spec, each of its type (a bool is
    not a number here, as it is not in JSON)."""
    if not isinstance(obj, dict):
        finding(f"{where}: not an object")
        return
    for name, types in spec.items():
        if name not in obj:
            finding(f"{where}: no member {name}")
            continue
        types = types if isinstance(types, tuple) else (types,)
        value = obj[name]
        if isinstance(value, bool) and BOOL not in types:
            finding(f"{where}.{name}: a boolean, not {types}")
        elif not isinstance(value, types):
            finding(f"{where}.{name}: {type(value).__name__}, not {types}")
    for name in obj:
        if name not in spec:
            finding(f"{where}: member {name} is not in the schema")


def check_common(doc, command):
    if doc.get("schema") != 2:
        finding(f"schema is {doc.get('schema')!r}, not 2")
    if doc.get("command") != command:
        finding(f"command is {doc.get('command')!r}, not {command}")
    if doc.get("environment") not in ("host", "container", "chroot"):
        finding(f"environment {doc.get('environment')!r}")


def check_detect(path):
    doc = load_json(path)
    members("detect", doc, DETECT)
    check_common(doc, "detect")
    modules = doc.get("modules")
    if not isinstance(modules, dict) or not modules:
        finding(f"detect.modules: {modules!r}")
        return
    for name, state in modules.items():
        if not re.fullmatch(r"[a-z0-9_]+", name) or state not in MODSTATES:
            finding(f"detect.modules.{name}: {state!r}")


# --- Prometheus' text format ------------------------------------------------

NAME = re.compile(r"nettune_[a-z][a-z0-9_]*")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


def parse_labels(text, where):
    """{name="value",...} -> (dict, rest); the value's escapes undone."""
    labels = {}
    i = 1
    while text[i] != "}":
        m = LABEL_NAME.match(text, i)
        if not m or text[m.end():m.end() + 2] != '="':
            raise ValueError(f"{where}: bad label at {text[i:]!r}")
        name, i = m.group(0), m.end() + 2
        value = []
        while text[i] != '"':
            c = text[i]
            if c == "\n":
                raise ValueError(f"{where}: newline in a label value")
            if c == "\\":
                esc = text[i + 1]
                if esc not in '\\"n':
                    raise ValueError(f"{where}: unknown escape \\{esc}")
                value.append("\n" if esc == "n" else esc)
                i += 2
            else:
                value.append(c)
                i += 1
        if name in labels:
            raise ValueError(f"{where}: label {name} twice")
        labels[name] = "".join(value)
        i += 1
        if text[i] == ",":
            i += 1
    return labels, text[i + 1:]


def load_prometheus(path):
    """{family: [(labels, value)]}, checking the format as it goes."""
    with open(path, "rb") as f:
        data = f.read()
    text = data.decode("utf-8")  # raises on invalid UTF-8
    if text and not text.endswith("\n"):
        finding(f"{path}: the last line has no newline")
    families, help_seen, current = {}, set(), None
    for number, line in enumerate(text.split("\n")[:-1], 1):
        where = f"{path}:{number}"
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            if not NAME.fullmatch(name) or not help_text:
                finding(f"{where}: bad HELP line")
            if name in help_seen:
                finding(f"{where}: {name} opened twice")
            help_seen.add(name)
            current = name
            families[name] = []
            continue
        if line.startswith("# TYPE "):
            if line != f"# TYPE {current} gauge":
                finding(f"{where}: TYPE does not follow its HELP as a gauge")
            continue
        m = NAME.match(line)
        if not m:
            finding(f"{where}: not a sample: {line!r}")
            continue
        name, rest = m.group(0), line[m.end():]
        if name != current:
            finding(f"{where}: {name} outside its family")
        labels = {}
        if rest.startswith("{"):
            try:
                labels, rest = parse_labels(rest, where)
            except (ValueError, IndexError) as e:
                finding(str(e))
                continue
        if not re.fullmatch(r" (0|[1-9][0-9]*)", rest):
            finding(f"{where}: the value is not one integer (a timestamp?): {rest!r}")
            continue
        if name.endswith("_info") and rest != " 1":
            finding(f"{where}: an _info sample is not 1")
        if any(labels == other for other, _ in families.get(name, [])):
            finding(f"{where}: the same series twice")
        families.setdefault(name, []).append((labels, int(rest)))
    return families


def one(families, name, labels=None):
    samples = [v for l, v in families.get(name, []) if l == (labels or {})]
    if len(samples) != 1:
        finding(f"{name}{labels or ''}: {len(samples)} samples")
        return None
    return samples[0]


# The metric families of the man page.
FAMILIES = {"nettune_info", "nettune_alarm", "nettune_condition", "nettune_cpus",
            "nettune_fragment_cpus", "nettune_key_state", "nettune_key_value",
            "nettune_module_state", "nettune_qdisc_info", "nettune_qdisc_pending"}


def check_status(json_path, prom_path, exit_status):
    doc = load_json(json_path)
    members("status", doc, STATUS)
    check_common(doc, "status")
    members("status.fragment", doc.get("fragment"), FRAGMENT)
    frag = doc.get("fragment") or {}
    if frag.get("cpus_change") is not None and not frag.get("cpus_changed"):
        finding("fragment.cpus_change without a changed CPU count")
    for i, c in enumerate(frag.get("cpus_change") or []):
        members(f"status.fragment.cpus_change[{i}]", c, CPU_CHANGE)
        if c.get("then") == c.get("now"):
            finding(f"fragment.cpus_change[{i}]: no change")
    for i, m in enumerate(doc.get("modules", [])):
        members(f"status.modules[{i}]", m, MODULE)
        if m.get("state") not in MODSTATES:
            finding(f"modules[{i}].state: {m.get('state')!r}")
    if "tcp_bbr" not in [m.get("module") for m in doc.get("modules", [])]:
        finding("no tcp_bbr among the modules")
    for i, key in enumerate(doc.get("keys", [])):
        members(f"status.keys[{i}]", key, KEY)
        if key.get("state") not in KEY_STATES:
            finding(f"keys[{i}].state: {key.get('state')!r}")
        if key.get("live_error") not in (None, "absent", "unreadable"):
            finding(f"keys[{i}].live_error: {key.get('live_error')!r}")
        if (key.get("live") is None) != (key.get("live_error") is not None):
            finding(f"keys[{i}]: live and live_error disagree")
        if key.get("alarm") != KEY_STATES.get(key.get("state")):
            finding(f"keys[{i}]: alarm does not follow state")
        if key.get("wanted") is None and key.get("state") not in ("missing", "edited"):
            finding(f"keys[{i}]: no wanted value in state {key.get('state')}")
        if key.get("state") == "missing" and key.get("wanted") is not None:
            finding(f"keys[{i}]: missing, yet the fragment sets {key.get('wanted')!r}")
    for i, q in enumerate(doc.get("qdiscs") or []):
        members(f"status.qdiscs[{i}]", q, QDISC)
    if (doc.get("qdiscs") is None) != (doc.get("qdiscs_error") is not None):
        finding("qdiscs and qdiscs_error disagree")
    conditions = doc.get("conditions", [])
    for c in conditions:
        if c not in CONDITIONS:
            finding(f"condition {c!r}")
    if [c for c in CONDITIONS if c in conditions] != conditions:
        finding(f"conditions {conditions} not in the man page's order, or twice")
    alarm = any(CONDITIONS.get(c) for c in conditions)
    verdict = doc.get("verdict")
    want = "alarm" if alarm else "chosen" if conditions else "in-effect"
    if verdict != want:
        finding(f"verdict {verdict!r} with conditions {conditions}")
    if verdict not in VERDICTS:
        finding(f"verdict {verdict!r}")
    elif VERDICTS[verdict] != doc.get("exit_status"):
        finding(f"verdict {verdict} with exit_status {doc.get('exit_status')}")
    if doc.get("exit_status") != exit_status:
        finding(f"exit_status {doc.get('exit_status')}, the command exited {exit_status}")

    fam = load_prometheus(prom_path)
    frag = doc.get("fragment", {})
    facts = {
        "nettune_alarm": int(verdict == "alarm"),
        "nettune_cpus": doc.get("cpus"),
        "nettune_qdisc_pending": int(doc.get("qdisc_pending", False)),
    }
    if frag.get("cpus") is not None:
        facts["nettune_fragment_cpus"] = frag["cpus"]
    elif "nettune_fragment_cpus" in fam:
        finding("nettune_fragment_cpus without a marker line")
    for name, want in facts.items():
        got = one(fam, name)
        if got is not None and got != want:
            finding(f"{name} is {got}, JSON says {want}")
    info = {"version": doc.get("version"), "kernel": doc.get("kernel"),
            "environment": doc.get("environment"), "container": doc.get("container") or ""}
    one(fam, "nettune_info", info)
    if len(fam.get("nettune_condition", [])) != len(CONDITIONS):
        finding(f"nettune_condition: {len(fam.get('nettune_condition', []))} series")
    for c, is_alarm in CONDITIONS.items():
        got = one(fam, "nettune_condition",
                  {"condition": c, "chosen": "no" if is_alarm else "yes"})
        if got is not None and got != int(c in conditions):
            finding(f"nettune_condition{{condition={c}}} is {got}, JSON says {conditions}")
    # State sets: one series per state, exactly one of them 1.
    for m in doc.get("modules", []):
        for st in MODSTATES:
            got = one(fam, "nettune_module_state", {"module": m.get("module"), "state": st})
            if got is not None and got != int(st == m.get("state")):
                finding(f"nettune_module_state for {m.get('module')} {st} is {got}")
    keys = doc.get("keys", [])
    if len(fam.get("nettune_key_state", [])) != len(keys) * len(KEY_STATES):
        finding(f"nettune_key_state: {len(fam.get('nettune_key_state', []))} series "
                f"for {len(keys)} keys")
    for key in keys:
        k = {"key": key.get("key")}
        for st in KEY_STATES:
            got = one(fam, "nettune_key_state", {**k, "state": st})
            if got is not None and got != int(st == key.get("state")):
                finding(f"nettune_key_state{k} {st} is {got}, JSON says {key.get('state')}")
        live = key.get("live")
        if live is not None and re.fullmatch(r"[0-9]+", live) and int(live) < 2**64:
            got = one(fam, "nettune_key_value", k)
            if got is not None and got != int(live):
                finding(f"nettune_key_value{k} is {got}, JSON says {live}")
        elif any(l == k for l, _ in fam.get("nettune_key_value", [])):
            finding(f"nettune_key_value{k} for a value that is not one number: {live!r}")
    for name in fam:
        if name not in FAMILIES:
            finding(f"{name}: not a metric of the man page")
    for q in doc.get("qdiscs") or []:
        one(fam, "nettune_qdisc_info", {"interface": q["interface"], "root": q["root"] or "",
                                        "leaves": " ".join(q["leaves"])})
    return doc


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "detect":
            check_detect(argv[2])
        elif len(argv) == 5 and argv[1] == "status":
            check_status(argv[2], argv[3], int(argv[4]))
        else:
            print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
            return 2
    except (ValueError, UnicodeDecodeError) as e:
        finding(f"does not parse: {e}")
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
