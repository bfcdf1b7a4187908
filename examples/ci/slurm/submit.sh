#!/bin/bash
# Submits a survey split into SHARDS array tasks, then the merge, which starts only when
# every shard succeeded. Usage: SHARDS=8 CAPMAP_RESULTS=/shared/capmap ./submit.sh
set -euo pipefail
cd "$(dirname "$0")"
export CAPMAP_RESULTS=${CAPMAP_RESULTS:-$PWD/capmap-results}
survey=$(sbatch --parsable --export=ALL --array="1-${SHARDS:-8}" survey.sbatch)
merge=$(sbatch --parsable --export=ALL --dependency="afterok:${survey%%;*}" merge.sbatch)
echo "survey job $survey, merge job $merge; results in $CAPMAP_RESULTS"
