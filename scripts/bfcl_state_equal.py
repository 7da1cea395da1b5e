#!/usr/bin/env python3
"""Compares pairs of BFCL final states written by the benchmark server's --state-out.

  python3 bfcl_state_equal.py <agent-envs/envs folder>  < pairs.json

pairs.json: [["expected.pkl", "actual.pkl"], ...]. Each file is a pickle of
{class_name: instance}, with FILE.json beside it (a canonical JSON snapshot). Prints one
JSON list, one verdict per pair: {"valid": BFCL's own state_checker passes,
"snapshot_equal": the snapshots are equal, "error": the checker's message when it fails}.
The pickles are the server's own files: load only files it wrote.
"""
import json
import pickle
import sys


def verdict(state_checker, expected_path, actual_path):
    with open(expected_path, "rb") as f:
        expected = pickle.load(f)
    with open(actual_path, "rb") as f:
        actual = pickle.load(f)
    checked = state_checker(actual, expected)
    with open(expected_path + ".json") as f:
        expected_snapshot = json.load(f)
    with open(actual_path + ".json") as f:
        actual_snapshot = json.load(f)
    out = {"valid": bool(checked["valid"]), "snapshot_equal": expected_snapshot == actual_snapshot}
    if not checked["valid"]:
        out["error"] = checked.get("error_message", "")
    return out


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: bfcl_state_equal.py <agent-envs/envs folder> < pairs.json")
    sys.path.insert(0, sys.argv[1])
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import state_checker

    pairs = json.load(sys.stdin)
    print(json.dumps([verdict(state_checker, a, b) for a, b in pairs]))


if __name__ == "__main__":
    main()
