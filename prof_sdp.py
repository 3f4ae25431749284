import sys, time, cProfile, pstats
from pathlib import Path
ROOT = Path("/work/main")
sys.path.insert(0, str(ROOT/"src"))
from dpbandits.config import load_experiment, load_yaml
from dpbandits.privacy import matching, releases
SCHEMA = ROOT / "workflow/schemas/experiment.schema.yaml"
matching.DISK_CACHE = Path("/tmp/prof/m.json"); releases.PART_CACHE = Path("/tmp/prof/p.json")
for f in (matching.DISK_CACHE, releases.PART_CACHE):
    f.unlink(missing_ok=True)
cfg = load_yaml(ROOT / "config/config.yaml")
exp = load_experiment(ROOT / "config/experiments/dpdpe.yaml", cfg, SCHEMA)
panel = sys.argv[1] if len(sys.argv) > 1 else "dpdpe_fig2af"
cells = [c for c in exp.cells if c.configuration == "matched" and c.series == "SDP-DPE" and c.panel == panel]
c = cells[0]; print(c.panel, c.epsilon, c.d, c.T)
t = time.time()
pr = cProfile.Profile(); pr.enable()
pol = c.policy()
pr.disable()
print("search", time.time() - t, pol.match)
pstats.Stats(pr).sort_stats("cumulative").print_stats(30)
