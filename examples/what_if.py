"""A what-if study from Python: Llama 3 70B training on 64 H100, the step time and MFU as tensor
parallelism changes, from the shipped scenario read as a dict and edited in place.

    PYTHONPATH=build/python python3 examples/what_if.py
"""
import os
import tomllib

import perfcast

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "scenarios", "llama3-70b-h100-training.toml"), "rb") as f:
    scenario = tomllib.load(f)

print(f"{'tp':>3} {'pp':>3} {'step':>9} {'MFU':>6} {'memory/GPU':>11}  fits")
for tp, pp in ((1, 8), (2, 8), (4, 4), (8, 2), (8, 4)):
    scenario["parallelism"].update(tp=tp, pp=pp)
    try:
        p = perfcast.predict(scenario)
    except perfcast.InputError as e:  # a layout the rules refuse, in one line
        print(f"{tp:>3} {pp:>3}  refused: {e}")
        continue
    t = p["training"]
    print(f"{tp:>3} {pp:>3} {t['step_time_s']:>8.2f}s {t['mfu']:>6.1%} {p['memory']['per_device_bytes'] / 2**30:>8.1f} GiB  {p['memory']['fits']}")
