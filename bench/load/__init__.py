"""The load bench of the real bot (`python -m bench.bot_load`, its options and its doc there),
in parts: `scenarios` (what a run is made of), `procs` (the processes seen in /proc),
`people` (the scripted people who open tables and play), `fleet` (the bot's processes),
`measure` (the numbers taken from the stand-in, the database and /proc), `run` (one run, step
by step), `results` (a run's numbers and verdicts), `report` (the lines printed)."""
