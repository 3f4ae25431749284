"""How jobs run, not what they compute: the warm worker, the notebook kernel manager, atomic
files, job logs, the run's summary, the job-rate setting, the CPU pin and the job memory
estimate (README.md in this folder states each module's contract). Nothing here changes a
number."""
