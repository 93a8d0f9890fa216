"""Runs a command that must end by itself within a bound: prints its output
(stdout and stderr together) and then "exit status N"; when it runs longer
(a hang), ends it and exits with 1 after "did not end within S s".

Usage: ends-within.py SECONDS COMMAND [ARGUMENT...]
"""
import os
import signal
import subprocess
import sys

seconds = float(sys.argv[1])
# Its own session, so that ending it reaches every process it started.
process = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, start_new_session=True)
try:
    output, _ = process.communicate(timeout=seconds)
except subprocess.TimeoutExpired:
    # mpirun ends its ranks on SIGTERM; what is left after a grace period
    # is killed.
    os.killpg(process.pid, signal.SIGTERM)
    try:
        output, _ = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    sys.stdout.write(output.decode(errors="replace"))
    print(f"did not end within {seconds:g} s")
    sys.exit(1)
sys.stdout.write(output.decode(errors="replace"))
print(f"exit status {process.returncode}")
