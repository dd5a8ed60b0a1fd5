#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes a promtool rule test (promtool test rules) for the shipped
alerting rules, from the real metrics of each state of tests/states.sh.

usage: alert-cases.py RULES MATRIX DIR > TEST.yml

RULES is the rule file, which the test names by its base name; MATRIX the matrix of
tests/states.sh; DIR holds STATE.prom, what status --prometheus printed in
each state. Each state is one instance of job "node", as the node exporter
would serve it: its samples, node_uname_info, and a .prom file written every
minute. The alert expected of a state is the matrix's: NettuneAlarm with
its condition, or none. Then the metrics going stale, going missing on one
node, and absent everywhere.
"""
import json
import re
import sys

import yaml

TEXTFILE = "/var/lib/prometheus/node-exporter/wp-panel-nettune.prom"
SAMPLE = re.compile(r'([a-z_]+)(\{.*\})? ([0-9]+)$')


def series(name, labels, values):
    inner = ",".join(f'{k}={json.dumps(v)}' for k, v in labels.items())
    return {"series": f"{name}{{{inner}}}", "values": values}


def state_series(state, path):
    node = {"instance": state, "job": "node"}
    out = [series("node_uname_info", node, "1x70"),
           series("node_textfile_mtime_seconds", {"file": TEXTFILE, **node}, "0+60x70")]
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            m = SAMPLE.match(line.rstrip("\n"))
            if not m:
                raise SystemExit(f"{path}: not a sample: {line!r}")
            name, labels, value = m.groups()
            body = labels[1:-1] if labels else ""
            merged = f"{{{body}{',' if body else ''}instance=\"{state}\",job=\"node\"}}"
            out.append({"series": name + merged, "values": f"{value}x70"})
    return out


def annotations(rules, alertname, labels):
    """The rule's annotations as Prometheus renders them for labels: the
    file's templates use no more than {{ $labels.NAME }}."""
    for group in rules["groups"]:
        for rule in group["rules"]:
            if rule.get("alert") == alertname:
                return {k: re.sub(r"\{\{ *\$labels\.([a-z_]+) *\}\}",
                                  lambda m: labels.get(m.group(1), ""), v)
                        for k, v in rule.get("annotations", {}).items()}
    raise SystemExit(f"no alert {alertname} in the rules")


def expected(rules, alertname, labels):
    return {"exp_labels": labels,
            "exp_annotations": annotations(rules, alertname, labels)}


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    rules_path, matrix, where = argv[1:]
    with open(rules_path, encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    rows = [line.split() for line in open(matrix, encoding="utf-8") if line.strip()]
    inputs, alarms = [], []
    for state, _rc, condition, _key, alert in rows:
        inputs += state_series(state, f"{where}/{state}.prom")
        if alert == "NettuneAlarm":
            alarms.append(expected(rules, "NettuneAlarm",
                                   {"condition": condition, "chosen": "no",
                                    "instance": state, "job": "node",
                                    "severity": "warning"}))
        elif alert != "-":
            raise SystemExit(f"{matrix}: unknown alert {alert}")
    none = []
    test = {
        "rule_files": [rules_path.rsplit("/", 1)[-1]],
        "evaluation_interval": "1m",
        "tests": [
            {"name": "each state: an alarm on each state nobody chose, none on choices",
             "interval": "1m",
             "input_series": inputs,
             "alert_rule_test": [
                 # Not yet: an alarm waits 30 minutes.
                 {"eval_time": "20m", "alertname": "NettuneAlarm", "exp_alerts": none},
                 {"eval_time": "40m", "alertname": "NettuneAlarm", "exp_alerts": alarms},
                 {"eval_time": "60m", "alertname": "NettuneMetricsStale", "exp_alerts": none},
                 {"eval_time": "60m", "alertname": "NettuneMetricsMissing", "exp_alerts": none},
                 {"eval_time": "60m", "alertname": "NettuneMetricsAbsent", "exp_alerts": none},
             ]},
            {"name": "a file that stopped changing, a node whose file is gone",
             "interval": "1m",
             "input_series": [
                 *[s for s in state_series("stale", f"{where}/in-effect.prom")
                   if not s["series"].startswith("node_textfile_mtime_seconds")],
                 series("node_textfile_mtime_seconds",
                        {"file": TEXTFILE, "instance": "stale", "job": "node"}, "0x70"),
                 series("node_uname_info", {"instance": "gone", "job": "node"}, "1x70"),
             ],
             "alert_rule_test": [
                 {"eval_time": "40m", "alertname": "NettuneMetricsStale", "exp_alerts": none},
                 {"eval_time": "50m", "alertname": "NettuneMetricsStale", "exp_alerts": [
                     expected(rules, "NettuneMetricsStale",
                              {"file": TEXTFILE, "instance": "stale", "job": "node",
                               "severity": "warning"})]},
                 {"eval_time": "50m", "alertname": "NettuneMetricsMissing", "exp_alerts": [
                     expected(rules, "NettuneMetricsMissing",
                              {"instance": "gone", "job": "node",
                               "severity": "warning"})]},
                 {"eval_time": "50m", "alertname": "NettuneMetricsAbsent", "exp_alerts": none},
             ]},
            {"name": "no node serves the metrics",
             "interval": "1m",
             "input_series": [series("node_uname_info", {"instance": "a", "job": "node"},
                                     "1x70")],
             "alert_rule_test": [
                 {"eval_time": "50m", "alertname": "NettuneMetricsAbsent", "exp_alerts": [
                     expected(rules, "NettuneMetricsAbsent", {"severity": "warning"})]},
             ]},
        ],
    }
    # JSON is YAML: promtool reads it as it is.
    json.dump(test, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
