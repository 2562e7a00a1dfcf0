# A throwaway single-node SLURM cluster on loopback, from Debian's slurm-wlm
# and munge (sourced by test_slurm.sh). Everything lives under one directory:
# the munge key and socket, slurm.conf, state, spool, logs and pid files. The
# daemons run in the foreground as children of this shell, so they are
# stopped by their own pids; nothing touches /etc, /run or systemd.
#
#   slurm_start DIR [accounting]
#                        start munged, slurmctld, slurmd; wait (bounded) for the node to be idle.
#                        With `accounting`, first MariaDB and slurmdbd too (packages slurmdbd,
#                        mariadb-server-core, mariadb-client-core: no MariaDB service is
#                        installed or started), and the account kblab holding the user
#   slurm_stop           cancel every job, stop the daemons by pid (TERM, then KILL); idempotent
#
# After slurm_start, SLURM_CONF points the client commands (sbatch, squeue,
# scontrol, scancel, sinfo) at this cluster. Root only: slurmd runs jobs as
# their user.

SLURM_PIDS=()
SLURM_DIR=

# slurm_free_port: a TCP port nothing listens on, from a range above the
# usual services (the test picks two, for slurmctld and slurmd).
slurm_free_port() {
  local port tries=0
  while [ $tries -lt 50 ]; do
    port=$((20000 + RANDOM % 30000))
    tries=$((tries + 1))
    (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && continue
    echo "$port"
    return 0
  done
  echo "slurm-cluster: no free TCP port found" >&2
  return 1
}

# slurm_daemon COMMAND...: execs COMMAND (so it keeps the pid of the
# background job that calls it: `slurm_daemon slurmd ... &`) where the
# machine's name is localhost. With NoCtldInAddrAny and NoInAddrAny, Slurm's
# daemons bind the address the machine's name resolves to (gethostname(),
# whatever slurm.conf says), and the clients call 127.0.0.1: a Debian install
# maps its name to 127.0.1.1, a container to its own address. In a UTS
# namespace of their own they are named localhost; where none can be made,
# they keep the machine's name.
slurm_daemon() {
  if unshare --uts true 2> /dev/null; then
    exec unshare --uts sh -c 'hostname localhost && exec "$@"' sh "$@"
  fi
  exec "$@"
}

# slurm_wait SECONDS WHAT COMMAND...: run COMMAND every second until it
# succeeds; fail after SECONDS, saying WHAT was awaited.
slurm_wait() {
  local seconds=$1 what=$2 i
  shift 2
  for ((i = 0; i < seconds; i++)); do
    "$@" > /dev/null 2>&1 && return 0
    sleep 1
  done
  echo "slurm-cluster: gave up after ${seconds} s waiting for $what" >&2
  return 1
}

slurm_write_conf() {  # DIR HOST CTLD_PORT SLURMD_PORT MEMORY_MB [DBD_PORT]
  local d=$1 host=$2 cport=$3 dport=$4 mem=$5 dbdport=${6:-}
  cat > "$d/slurm.conf" << EOF
# Single-node test cluster, loopback only (test/cluster/slurm-cluster.sh).
ClusterName=kbtest
# Daemons listen on 127.0.0.1 only, not on every interface.
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmctldHost=$host
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
PlugStackConfig=$d/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
$(if [ -n "$dbdport" ]; then
    printf 'AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=localhost\n'
    printf 'AccountingStoragePort=%s\nAccountingStorageEnforce=associations\n' "$dbdport"
    # the munge socket for connections to slurmdbd (AuthInfo does not apply to them)
    printf 'AccountingStoragePass=%s\n' "$d/munge/munge.socket"
  else
    echo AccountingStorageType=accounting_storage/none
  fi)
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  : > "$d/plugstack.conf"
}

# slurm_start_accounting DIR DBD_PORT: MariaDB on a free loopback port with
# its data under DIR/db, and slurmdbd storing in it.
slurm_start_accounting() {
  local d=$1 dbdport=$2 dbport
  dbport=$(slurm_free_port) || return 1
  mariadb-install-db --no-defaults --datadir="$d/db" --user=root --auth-root-authentication-method=socket \
    --skip-test-db > "$d/log/mariadb-install.log" 2>&1 || { tail -5 "$d/log/mariadb-install.log" >&2; return 1; }
  mariadbd --no-defaults --datadir="$d/db" --socket="$d/db.sock" --bind-address=127.0.0.1 --port="$dbport" \
    --user=root --pid-file="$d/db.pid" --log-error="$d/log/mariadb.log" > /dev/null 2>&1 &
  SLURM_PIDS+=($!)
  slurm_wait 60 "MariaDB" mariadb --no-defaults --socket="$d/db.sock" -e 'SELECT 1' || return 1
  mariadb --no-defaults --socket="$d/db.sock" -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'kbtest';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" || return 1
  cat > "$d/slurmdbd.conf" << EOF
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
CommunicationParameters=NoInAddrAny
DbdPort=$dbdport
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$dbport
StorageUser=slurm
StoragePass=kbtest
StorageLoc=slurm_acct_db
PidFile=$d/slurmdbd.pid
LogFile=$d/log/slurmdbd.log
EOF
  chmod 600 "$d/slurmdbd.conf"
  # slurmdbd reads slurmdbd.conf beside $SLURM_CONF.
  slurm_daemon slurmdbd -D > "$d/log/slurmdbd.out" 2>&1 &
  SLURM_PIDS+=($!)
  slurm_wait 60 "slurmdbd" sacctmgr -n list cluster || { tail -20 "$d/log/slurmdbd.log" >&2; return 1; }
  sacctmgr -i add cluster kbtest > /dev/null
}

slurm_start() {  # DIR [accounting]
  local d=$1 accounting=${2:-} host cport dport dbdport= mem
  SLURM_DIR=$d
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log"
  chmod 700 "$d/munge"
  # The controller and the node are both "localhost" at 127.0.0.1, whatever
  # the machine's own name resolves to (slurm_daemon).
  host=localhost
  dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$d/munge/munge.key"
  munged -F --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" --seed-file="$d/munge/seed" \
    > "$d/log/munged.out" 2>&1 &
  SLURM_PIDS+=($!)
  slurm_wait 20 "munged" munge -S "$d/munge/munge.socket" -n || return 1

  cport=$(slurm_free_port) && dport=$(slurm_free_port) || return 1
  if [ "$accounting" = accounting ]; then dbdport=$(slurm_free_port) || return 1; fi
  # Half the machine's memory, at least 2 GB: the jobs ask for a few hundred MB.
  mem=$(awk '/^MemTotal:/ { m = int($2 / 2048); print (m < 2048 ? 2048 : m) }' /proc/meminfo)
  slurm_write_conf "$d" "$host" "$cport" "$dport" "$mem" $dbdport
  export SLURM_CONF=$d/slurm.conf
  if [ -n "$dbdport" ]; then
    slurm_start_accounting "$d" "$dbdport" || return 1
  fi
  slurm_daemon slurmctld -D -i -f "$SLURM_CONF" > "$d/log/slurmctld.out" 2>&1 &
  SLURM_PIDS+=($!)
  slurm_wait 30 "slurmctld to answer" scontrol ping || { tail -20 "$d/log/slurmctld.log" >&2; return 1; }
  slurm_daemon slurmd -D -f "$SLURM_CONF" -N "$host" > "$d/log/slurmd.out" 2>&1 &
  SLURM_PIDS+=($!)
  if ! slurm_wait 60 "node $host to be idle" slurm_node_idle "$host"; then
    sinfo -N -l >&2 || true
    tail -20 "$d/log/slurmd.log" >&2 || true
    return 1
  fi
  # kblab is not the user's default account (root's stays root): a job
  # accounted to kblab was given it.
  if [ -n "$dbdport" ]; then
    sacctmgr -i add account kblab description=kmerbloom-test organization=kmerbloom > /dev/null &&
      sacctmgr -i add user "$(id -un)" account=kblab > /dev/null || return 1
  fi
}

slurm_node_idle() {  # HOST
  [ "$(sinfo -h -n "$1" -o %t 2> /dev/null)" = idle ]
}

slurm_stop() {
  local pid i
  [ ${#SLURM_PIDS[@]} -gt 0 ] || return 0
  if [ -n "${SLURM_CONF:-}" ] && [ -e "$SLURM_CONF" ]; then
    # Jobs first, so that no slurmstepd outlives the daemons.
    timeout 10 scancel --full --quiet --user="$(id -un)" 2> /dev/null || true
    for ((i = 0; i < 15; i++)); do
      [ -z "$(timeout 5 squeue -h -o %i 2> /dev/null)" ] && break
      sleep 1
    done
  fi
  # slurmd, slurmctld, munged: the reverse of the start order.
  for ((i = ${#SLURM_PIDS[@]} - 1; i >= 0; i--)); do
    kill -TERM "${SLURM_PIDS[$i]}" 2> /dev/null || true
  done
  for pid in "${SLURM_PIDS[@]}"; do
    for ((i = 0; i < 20; i++)); do
      kill -0 "$pid" 2> /dev/null || break
      sleep 0.5
    done
    kill -KILL "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
  done
  SLURM_PIDS=()
}
