#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks the machine-readable output of wp-panel-nettune against the JSON
schemas the package installs (share/schema/) and the metric names of its man
page (PROMETHEUS METRICS); "manpage" checks that the man page names every
member, state and condition of the schemas.

usage: output-check.py detect JSON_FILE
       output-check.py status JSON_FILE PROM_FILE EXIT_STATUS
       output-check.py manpage

JSON is parsed with Python's json module, strictly (one object, nothing
after it, no NaN); Prometheus' text format line by line. For status, the
two must state the same facts, and the exit status the command returned
must be the one both report. Prints one line per finding; exit status 1 if
there is any.
"""
import json
import os
import re
import shlex
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


# The schemas the package installs (share/schema/), the one statement of
# both layouts: every member, its type, the values a string may take, the
# states and conditions that raise the alarm. The man page's JSON OUTPUT and
# STATES must name every member, state and condition they hold.
SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "share", "schema")
MANPAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "man",
                       "wp-panel-nettune.8")


def load_schema(command):
    with open(os.path.join(SCHEMA_DIR, f"{command}.schema.json"), encoding="utf-8") as f:
        return json.load(f)


TYPES = {"string": (str,), "integer": (int,), "boolean": (bool,), "null": (type(None),),
         "object": (dict,), "array": (list,)}


def validate(where, value, schema):
    """The subset of JSON Schema 2020-12 the schemas use: type, const, enum,
    properties, required, additionalProperties, propertyNames' pattern,
    minProperties, items, uniqueItems, minimum, maximum. A bool is no integer here,
    as it is not in JSON."""
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        ok = any(isinstance(value, TYPES[n]) and
                 not (n == "integer" and isinstance(value, bool)) for n in names)
        if not ok:
            finding(f"{where}: {type(value).__name__}, not {' or '.join(names)}")
            return
    if "const" in schema and value != schema["const"]:
        finding(f"{where}: {value!r}, not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        finding(f"{where}: {value!r}, not one of {schema['enum']}")
    if "minimum" in schema and isinstance(value, int) and value < schema["minimum"]:
        finding(f"{where}: {value} < {schema['minimum']}")
    if "maximum" in schema and isinstance(value, int) and value > schema["maximum"]:
        finding(f"{where}: {value} > {schema['maximum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                finding(f"{where}: no member {name}")
        if len(value) < schema.get("minProperties", 0):
            finding(f"{where}: fewer than {schema['minProperties']} members")
        for name, member in value.items():
            pattern = schema.get("propertyNames", {}).get("pattern")
            if pattern and not re.search(pattern, name):
                finding(f"{where}: member name {name!r}")
            if name in props:
                validate(f"{where}.{name}", member, props[name])
            elif schema.get("additionalProperties") is False:
                finding(f"{where}: member {name} is not in the schema")
            elif isinstance(schema.get("additionalProperties"), dict):
                validate(f"{where}.{name}", member, schema["additionalProperties"])
    if isinstance(value, list):
        if schema.get("uniqueItems") and len(set(map(repr, value))) != len(value):
            finding(f"{where}: an item twice")
        for i, item in enumerate(value):
            if "items" in schema:
                validate(f"{where}[{i}]", item, schema["items"])


def schema_names(schema, out):
    """Every member name and every string value an enum allows."""
    for name, member in schema.get("properties", {}).items():
        out.add(name)
        schema_names(member, out)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            schema_names(schema[key], out)
    out.update(v for v in schema.get("enum", []) if isinstance(v, str))
    return out


def check_manpage():
    """The man page names, in bold, every member and value of both schemas."""
    with open(MANPAGE, encoding="utf-8") as f:
        text = f.read()
    bold = set()
    for macro, rest in re.findall(r"^\.(B|BR|RB) (.*)$", text, re.M):
        words = shlex.split(rest.replace("\\", "\\\\"))
        start = 1 if macro == "RB" else 0
        bold.update(w.replace("\\-", "-").rstrip(",.") for w in
                    (words[:1] if macro == "B" else words[start::2]))
    for command in ("detect", "status"):
        for name in sorted(schema_names(load_schema(command), set())):
            if name not in bold:
                finding(f"{command}.schema.json names {name}, the man page does not")


def load_status_schema():
    schema = load_schema("status")
    props = schema["properties"]
    state = props["keys"]["items"]["properties"]["state"]
    conditions = props["conditions"]["items"]["enum"]
    return (schema, props["modules"]["items"]["properties"]["state"]["enum"],
            {s: s in state["x-alarm"] for s in state["enum"]},
            {c: c in props["conditions"]["x-alarm"] for c in conditions},
            props["verdict"]["x-exit-status"])


STATUS_SCHEMA, MODSTATES, KEY_STATES, CONDITIONS, VERDICTS = load_status_schema()


def check_detect(path):
    doc = load_json(path)
    validate("detect", doc, load_schema("detect"))


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
            "nettune_module_state", "nettune_qdisc_info", "nettune_qdisc_pending",
            "nettune_initial_window_wanted", "nettune_initial_window_attached",
            "nettune_initial_window_segments", "nettune_initial_window_port_info",
            "nettune_initial_window_given_total"}


def check_status(json_path, prom_path, exit_status):
    doc = load_json(json_path)
    validate("status", doc, STATUS_SCHEMA)
    frag = doc.get("fragment") or {}
    if frag.get("cpus_change") is not None and not frag.get("cpus_changed"):
        finding("fragment.cpus_change without a changed CPU count")
    for i, c in enumerate(frag.get("cpus_change") or []):
        if c.get("then") == c.get("now"):
            finding(f"fragment.cpus_change[{i}]: no change")
    if not doc.get("modules"):
        finding("no module listed")
    for i, key in enumerate(doc.get("keys", [])):
        if (key.get("live") is None) != (key.get("live_error") is not None):
            finding(f"keys[{i}]: live and live_error disagree")
        if key.get("alarm") != KEY_STATES.get(key.get("state")):
            finding(f"keys[{i}]: alarm does not follow state")
        if key.get("wanted") is None and key.get("state") not in ("missing", "edited"):
            finding(f"keys[{i}]: no wanted value in state {key.get('state')}")
        if key.get("state") == "missing" and key.get("wanted") is not None:
            finding(f"keys[{i}]: missing, yet the fragment sets {key.get('wanted')!r}")
    if (doc.get("qdiscs") is None) != (doc.get("qdiscs_error") is not None):
        finding("qdiscs and qdiscs_error disagree")
    iw = doc.get("initial_windows") or {}
    if (iw.get("attached") is None) != (iw.get("error") is not None):
        finding("initial_windows: attached and error disagree")
    if (iw.get("program_id") is None) != (iw.get("ports") is None):
        finding("initial_windows: program_id and ports disagree")
    if iw.get("left_alone") is not None and iw.get("attached"):
        finding("initial_windows: attached, yet left alone")
    conditions = doc.get("conditions", [])
    if [c for c in CONDITIONS if c in conditions] != conditions:
        finding(f"conditions {conditions} not in the man page's order, or twice")
    alarm = any(CONDITIONS.get(c) for c in conditions)
    verdict = doc.get("verdict")
    want = "alarm" if alarm else "chosen" if conditions else "in-effect"
    if verdict != want:
        finding(f"verdict {verdict!r} with conditions {conditions}")
    if verdict in VERDICTS and VERDICTS[verdict] != doc.get("exit_status"):
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
    iw = doc.get("initial_windows") or {}
    if "initial-window-drift" in doc["conditions"] and not (
            iw.get("wanted") != bool(iw.get("attached")) or
            (iw.get("attached") and (sorted(iw["ports"]) != sorted(iw["wanted_ports"]) or
                                     iw["congestion"] != iw["wanted_congestion"]))):
        finding("initial-window-drift with the program as wanted")
    if iw.get("error") == "not queried under --root":
        for name in ("nettune_initial_window_wanted", "nettune_initial_window_attached"):
            if name in fam:
                finding(f"{name} under --root")
    else:
        if one(fam, "nettune_initial_window_wanted") != int(iw.get("wanted", False)):
            finding("nettune_initial_window_wanted disagrees with JSON")
        if one(fam, "nettune_initial_window_attached") != int(bool(iw.get("attached"))):
            finding("nettune_initial_window_attached disagrees with JSON")
        if iw.get("ports") is not None:
            for port in iw["ports"]:
                one(fam, "nettune_initial_window_port_info", {"port": str(port)})
            if one(fam, "nettune_initial_window_given_total") != iw["given"]:
                finding("nettune_initial_window_given_total disagrees with JSON")
    return doc


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "detect":
            check_detect(argv[2])
        elif len(argv) == 5 and argv[1] == "status":
            check_status(argv[2], argv[3], int(argv[4]))
        elif len(argv) == 2 and argv[1] == "manpage":
            check_manpage()
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
