# Runs a command as an MPI rank; rank RANK kills itself (SIGKILL) SECONDS
# after it started: a rank that dies mid-run.
# Usage (under mpirun): sh kill-rank.sh RANK SECONDS COMMAND [ARGUMENT...]
rank=$1
delay=$2
shift 2
if [ "$OMPI_COMM_WORLD_RANK" = "$rank" ]; then
  # $$ is this shell, which becomes the command.
  (sleep "$delay" && kill -KILL $$) &
fi
exec "$@"
