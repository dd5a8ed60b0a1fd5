"""What a run was told and what it did: bench/links, bench/candidates,
settings/*.txt and settings/plan.txt."""

import os
import re
import sys


def die(msg):
    print(f"report: {msg}", file=sys.stderr)
    sys.exit(1)


def parse_loss(text):
    """A link's loss toward the client: a percentage, or "ge:P/R/H/K", netem's
    Gilbert-Elliott model (p, r, 1-h, 1-k, in percent). Returns (mean loss
    in percent, the model's four numbers or None). The chain is in the bad
    state a share P / (P + R) of the packets, where it loses H%; in the
    good state it loses K%."""
    if not text.startswith("ge:"):
        return float(text), None
    ge = [float(x) for x in text[3:].split("/")]
    if len(ge) != 4:
        raise ValueError("ge: wants four numbers, p/r/1-h/1-k")
    p, r, h, k = ge
    bad = p / (p + r) if p + r else 0.0
    return bad * h + (1 - bad) * k, ge


def is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_links(path):
    """bench/links: name -> dict(rtt_ms, loss (mean, %), loss_text, ge,
    rate_mbit, mtu, buffer (the bottleneck's buffer in BDPs), flows (competing
    cubic flows), what). A line of six columns, the format before buffer and
    flows were added, stands for one BDP and no competing flow."""
    links = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split(None, 7)
            new = len(parts) >= 7 and is_number(parts[5]) and parts[6].isdigit()
            if new:
                what = parts[7] if len(parts) > 7 else ""
            else:
                what = " ".join(parts[5:])
            try:
                loss, ge = parse_loss(parts[2])
                links[parts[0]] = {
                    "rtt_ms": float(parts[1]),
                    "loss": loss,
                    "loss_text": parts[2],
                    "ge": ge,
                    "rate_mbit": float(parts[3]),
                    "mtu": int(parts[4]),
                    "buffer": float(parts[5]) if new else 1.0,
                    "flows": int(parts[6]) if new else 0,
                    "what": what.strip(),
                }
            except (IndexError, ValueError) as e:
                die(f"{path}:{number}: not a link ({e}): {line.strip()}")
    return links


def loss_words(li):
    """A link's loss as the report writes it."""
    if li.get("ge"):
        return "Gilbert-Elliott loss %s (mean %.2f%%)" % ("/".join("%g" % x for x in li["ge"]), li["loss"])
    return "%g%% loss" % li.get("loss", 0)


class Candidate:
    """One block of bench/candidates."""

    FLAGS = ("measure-only", "placebo", "kernel-default")

    def __init__(self, name, flags, reason):
        self.name = name
        self.reason = reason
        self.lines = []
        self.measure_only = "measure-only" in flags
        self.placebo = "placebo" in flags
        self.kernel_default = "kernel-default" in flags
        self.primary = None   # None: the rule's default primary figure
        self.links = None     # None: every link of the decide pass
        for flag in flags:
            if flag.startswith("primary="):
                self.primary = flag[len("primary="):]
            elif flag.startswith("links="):
                self.links = [lk for lk in flag[len("links="):].split(",") if lk]
            elif flag not in self.FLAGS:
                raise ValueError("unknown flag %r" % flag)


def read_candidates(path):
    """bench/candidates: [Candidate], in the file's order."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = re.match(r"^\[([a-z0-9_-]+)((?:[ \t]+[^\]\s]+)*)[ \t]*\]\s*(.*)$", line)
            if m:
                try:
                    out.append(Candidate(m.group(1), m.group(2).split(), m.group(3)))
                except ValueError as e:
                    die(f"{path}:{number}: {e}")
            elif line and not line.startswith("#") and out:
                out[-1].lines.append(line)
    return out


def read_settings(path):
    """settings/*.txt "key: value" lines, or {} when absent."""
    vals = {}
    for name in ("machine.txt", "run.txt", "cpu-split.txt"):
        p = os.path.join(path, name)
        if os.path.exists(p):
            with open(p, encoding="utf-8") as f:
                for line in f:
                    k, sep, v = line.partition(": ")
                    if sep and k not in vals:
                        vals[k] = v.strip()
    return vals


def read_raw_archive(path):
    """RESULTS/raw.sha256 (bench/raw-archive): (SHA-256, archive's name) of
    the raw files' archive, or None when absent."""
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    m = re.fullmatch(r"([0-9a-f]{64})  ([A-Za-z0-9._-]+\.tar\.xz)", lines[0]) if len(lines) == 1 else None
    if not m:
        die(f"{path}: not one line of sha256sum's format naming a .tar.xz")
    return m.group(1), m.group(2)


def read_plan(path):
    """settings/plan.txt: the cells in the order they ran, (pass, round,
    link, profile) each; [] when absent (a run before the plan was written)."""
    plan = []
    if not os.path.exists(path):
        return plan
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if len(words) != 4 or not words[1].isdigit():
                die(f"{path}:{number}: not PASS ROUND LINK PROFILE: {line.strip()}")
            plan.append((words[0], int(words[1]), words[2], words[3]))
    return plan


def setting(settings, key, default):
    """A number of settings/run.txt, or DEFAULT when absent or not a number."""
    try:
        return float(settings[key])
    except (KeyError, ValueError):
        return default


def words(settings, key):
    """A list of settings/run.txt (blanks or commas between the names)."""
    return [w for w in re.split(r"[\s,]+", settings.get(key, "")) if w]
