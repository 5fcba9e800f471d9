#!/usr/bin/env bash
# install.sh - installs (or upgrades) authd from this unpacked release into a
# web server's document root, without root, a compiler or make.
#
#   ./install.sh --docroot DIR [--state DIR] [--url URL]
#
#   --docroot DIR  the directory the web server serves authd from, e.g.
#                  ~/public_html/auth (created if missing). It receives the
#                  pages (www/), an .htaccess and authd.fcgi: a two-line
#                  script that starts the program in the state directory.
#   --state DIR    authd's private directory, outside every document root:
#                  database, signing key, config (authd.conf), the program
#                  (authd.fcgi), the admin command (authctl) and the
#                  libraries both load (lib/, their only search path: no
#                  library is ever loaded from a directory a web
#                  application could write to). Mode 0700. Default: the one DIR already
#                  uses (an upgrade), else authd-state beside this release's
#                  folder.
#   --url URL      the address DIR is served at, e.g. https://example.com/auth.
#                  Default: guessed from DIR (the part after public_html, www,
#                  htdocs, httpdocs or html; else the site root).
#
# Running it again (from this or a newer release, with the same --docroot)
# upgrades in place: the pages, the program and the .htaccess block
# are replaced; the database (every user), the signing key (every token) and
# the config are kept (a config that does not set trusted_proxies or
# metrics_allow gets them, empty: see below).
#
# The document root is hostile ground: another application of the site may
# have planted links in it. Nothing there is written through a link: every
# file goes to a temporary name in its directory and is renamed over the
# name (which replaces a link itself, never what it points to); a link where
# a directory of the release goes is replaced by the directory; a link (or a
# second hard link) at .htaccess, the one file read there, stops the install.
#
# Every site of a shared host reaches Apache, and so authd, from loopback:
# the config trusts no proxy (trusted_proxies empty: X-Forwarded-For is not
# believed) and serves /metrics to nobody (metrics_allow empty) unless you
# list addresses there.
set -euo pipefail
umask 022

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
version=$(cat "$here/VERSION" 2>/dev/null || echo unknown)

die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }
usage() { # [EXIT]: the comment above, on stderr for a usage error
  local text
  text=$(awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}")
  if ((${1:-0})); then printf '%s\n' "$text" >&2; else printf '%s\n' "$text"; fi
  exit "${1:-0}"
}

docroot= state= url=
while (($#)); do
  case $1 in
    --docroot) (($# >= 2)) || usage 2; docroot=$2; shift 2 ;;
    --state) (($# >= 2)) || usage 2; state=$2; shift 2 ;;
    --url) (($# >= 2)) || usage 2; url=${2%/}; shift 2 ;;
    -h|--help) usage 0 ;;
    *) printf 'install.sh: unknown argument %s\n' "$1" >&2; usage 2 ;;
  esac
done
[[ -n $docroot ]] || { echo "install.sh: --docroot DIR is required" >&2; usage 2; }

# Absolute, symlink-free paths (the directories are created first).
absolute() { mkdir -p -- "$1" && (cd -- "$1" && pwd -P); }
docroot=$(absolute "$docroot") || die "cannot create the document root $docroot"
if [[ -z $state && -L $docroot/authd.conf ]]; then
  # An upgrade: the installation's own state, which the config link names;
  # believed only if it is one (a link planted there could name another).
  link=$(readlink -- "$docroot/authd.conf")
  found=$(dirname -- "$link")
  if [[ $link == /*/authd.conf && -d $found && ! -L $found && -O $found && -f $found/VERSION && -f $link && ! -L $link &&
        $(stat -c %a -- "$found") == 700 ]]; then
    state=$found
  else
    die "$docroot/authd.conf does not link to the authd.conf of a state directory of yours (mode 0700): pass --state DIR"
  fi
fi
[[ -n $state ]] || state=$(dirname "$here")/authd-state
state=$(umask 077 && absolute "$state") || die "cannot create the state directory $state"
[[ $state != *[\|\&\']* && $docroot != *[\|\&\']* ]] || die "paths with '|', '&' or a quote are not supported"

inside() { [[ $1 == "$2" || $1 == "$2"/* ]]; }  # is $1 the directory $2 or below it?

# The URL path of the document root, and the site's root directory when DIR
# lies below a directory a host serves (public_html, ...).
site_root= base=
if [[ -n $url ]]; then
  [[ $url =~ ^https?://[^/]+(/.*)?$ ]] || die "--url must look like https://example.com/auth"
  base=${BASH_REMATCH[1]:-}
  base=${base%/}
fi
IFS=/ read -r -a parts <<<"${docroot#/}"
for ((i = ${#parts[@]} - 1; i >= 0; i--)); do
  case ${parts[i]} in
    public_html|www|htdocs|httpdocs|html)
      site_root=/$(IFS=/; echo "${parts[*]:0:i+1}")
      [[ -n $url ]] || base=${docroot#"$site_root"}
      break ;;
  esac
done
if [[ -z $url && -z $site_root ]]; then
  echo "install.sh: note: cannot tell which URL serves $docroot; assuming the site root (/). Pass --url if not." >&2
fi
[[ -z $base || $base =~ ^/[A-Za-z0-9._~/-]+$ ]] || die "unusual URL path '$base': pass --url with a plain path"

# The state directory must never be reachable over HTTP.
inside "$state" "$docroot" && die "the state directory $state lies inside the document root: choose another --state"
inside "$docroot" "$state" && die "the document root lies inside the state directory $state"
if [[ -n $site_root ]] && inside "$state" "$site_root"; then
  die "the state directory $state lies inside the site's directory $site_root: choose a --state outside it"
fi

chmod 0700 "$state"
config=$state/authd.conf
previous=
[[ -f $state/VERSION ]] && previous=$(cat "$state/VERSION")

# The config: written once from the release's default, then the user's.
if [[ -f $config ]]; then
  config_note="kept $config"
else
  tmp=$(mktemp "$state/.authd.conf.XXXXXX")
  {
    printf '# authd settings for the installation in %s, written by install.sh.\n' "$docroot"
    printf '# install.sh keeps this file on upgrade: edit it freely.\n\n'
    sed -e "s|^#\?state_dir = .*|state_dir = $state|" "$here/conf/authd.conf"
  } >"$tmp"
  chmod 0600 "$tmp"
  mv -fT -- "$tmp" "$config"
  config_note="wrote $config"
fi
grep -qxF "state_dir = $state" "$config" ||
  echo "install.sh: note: state_dir in $config is not $state; authd uses what the file says" >&2
# Loopback is every co-tenant's address here: no trusted proxy and no
# metrics unless the config says otherwise (an older release's config
# left both at their loopback defaults).
missing=
for setting in trusted_proxies metrics_allow; do
  grep -Eq "^[[:space:]]*$setting[[:space:]]*=" "$config" || missing+=" $setting"
done
if [[ -n $missing ]]; then
  tmp=$(mktemp "$state/.authd.conf.XXXXXX")
  {
    cat -- "$config"
    printf '\n# Added by install.sh (authd %s): on a shared host every site reaches Apache,\n' "$version"
    printf '# and so authd, from loopback. No proxy is trusted (X-Forwarded-For is not\n'
    printf '# believed) and /metrics answers nobody, unless you list addresses here.\n'
    for setting in $missing; do printf '%s =\n' "$setting"; done
  } >"$tmp"
  chmod 0600 "$tmp"
  mv -fT -- "$tmp" "$config"
  config_note+="; set$missing empty"
fi

install_file() { # SRC DEST MODE: replaced atomically (a running copy keeps its file)
  local tmp
  tmp=$(mktemp "$(dirname "$2")/.install.XXXXXX")
  cp -- "$1" "$tmp"
  chmod "$3" "$tmp"
  mv -fT -- "$tmp" "$2"
}
# The libraries the release carries (lib/, RELEASE-NOTES.md) go to
# $state/lib, the programs' one search path (RUNPATH $ORIGIN/lib): beside
# the programs, outside every document root.
if [[ -d $here/lib ]]; then
  mkdir -p "$state/lib"
  chmod 0700 "$state/lib"
  for lib in "$here"/lib/*; do install_file "$lib" "$state/lib/$(basename "$lib")" 0600; done
fi

# Does the program run on this host, with this config? Before anything in the
# document root changes. --check opens the database and, on the first
# install, creates the signing key.
tmp_program=$(mktemp "$state/.authd.fcgi.XXXXXX")
cp -- "$here/bin/authd" "$tmp_program"
chmod 0700 "$tmp_program"
if ! check=$(env -i PATH=/usr/bin:/bin AUTHD_CONFIG="$config" "$tmp_program" --check 2>&1); then
  rm -f -- "$tmp_program"
  printf '%s\n' "$check" >&2
  die "authd cannot run here (see above; README.md, 'What the host needs'); nothing in $docroot was changed"
fi
# Named authd.fcgi: the .htaccess rules hand requests to DOCROOT/authd.fcgi/ROUTE,
# and the program recognises its own name in SCRIPT_NAME.
mv -fT -- "$tmp_program" "$state/authd.fcgi"
# The admin command, beside its config (it reads the authd.conf beside it).
install_file "$here/bin/authctl" "$state/authctl" 0700
# In case the state directory ever ends up below a document root after all.
tmp=$(mktemp "$state/.htaccess.XXXXXX")
printf 'RewriteEngine On\nRewriteRule ^ - [R=404,L]\n' >"$tmp"
chmod 0600 "$tmp"
mv -fT -- "$tmp" "$state/.htaccess"

# The document root: pages, the program's starter, config link, .htaccess.
# Never written through a link (see the top): put_dir and put_file.
htaccess=$docroot/.htaccess
if [[ -L $htaccess ]]; then
  die "$htaccess is a symbolic link (planted by another application?): remove it, or put your lines in a file, and run again; nothing in $docroot was changed"
fi
if [[ -f $htaccess && $(stat -c %h -- "$htaccess") != 1 ]]; then
  die "$htaccess has other hard links (planted by another application?): replace it with a copy and run again; nothing in $docroot was changed"
fi
put_dir() { # DIR: a directory of our own; a link planted there is removed, never followed
  if [[ -L $1 ]]; then
    rm -f -- "$1"
    echo "install.sh: note: $1 was a symbolic link; replaced with a directory" >&2
  fi
  [[ -d $1 ]] || mkdir -m 0755 -- "$1" || die "cannot create the directory $1 (a file is in its way?)"
  chmod 0755 "$1"
}
put_file() { # SRC DEST [FILTER...]: SRC (through FILTER, reading stdin) to DEST, mode 0644
  local src=$1 dest=$2 tmp
  shift 2
  [[ -d $dest && ! -L $dest ]] && die "$dest is a directory where this release puts a file: move it away"
  tmp=$(mktemp "$(dirname -- "$dest")/.install.XXXXXX") || die "cannot write in $(dirname -- "$dest")"
  if (($#)); then "$@" <"$src" >"$tmp"; else cat -- "$src" >"$tmp"; fi || { rm -f -- "$tmp"; die "cannot write $dest"; }
  chmod 0644 "$tmp"
  mv -fT -- "$tmp" "$dest" || { rm -f -- "$tmp"; die "cannot put $dest in place"; }
}
# The pages name their links, scripts and API calls from the site root
# ("/login", "/assets/...", fetch("/signin")): below a prefix they must
# name it. Root-relative URLs in attributes and in the scripts' string
# literals get the prefix ("//host" and a lone "/" are left alone).
page_filter() { sed -E "s#(href|src|action)=\"/([A-Za-z0-9_.?-]|\")#\\1=\"$base/\\2#g; s#url=/#url=$base/#g"; }
script_filter() { sed -E "s#([\"\`])/([a-z])#\\1$base/\\2#g"; }
put_dir "$docroot"
while IFS= read -r rel; do
  rel=${rel#./}
  if [[ -d $here/www/$rel ]]; then
    put_dir "$docroot/$rel"
  elif [[ -n $base && $rel == *.html && $rel != */* ]]; then
    put_file "$here/www/$rel" "$docroot/$rel" page_filter
  elif [[ -n $base && $rel == assets/*.js && $rel != assets/*/* ]]; then
    put_file "$here/www/$rel" "$docroot/$rel" script_filter
  else
    put_file "$here/www/$rel" "$docroot/$rel"
  fi
done < <(cd -- "$here/www" && find . -mindepth 1 | LC_ALL=C sort)
# Earlier releases put the program's libraries here: gone.
rm -rf -- "$docroot/.authd-lib"
# The web server starts this script (CGI or mod_fcgid); it becomes the
# program, which loads its libraries from $state/lib only.
tmp=$(mktemp "$docroot/.authd.fcgi.XXXXXX")
printf '#!/bin/sh\n# Written by install.sh (authd %s): the program lives in the private state directory.\nexec '"'"'%s/authd.fcgi'"'"' "$@"\n' \
  "$version" "$state" >"$tmp"
chmod 0755 "$tmp"
mv -fT -- "$tmp" "$docroot/authd.fcgi"
tmp=$(mktemp -u "$docroot/.authd.conf.XXXXXX")
ln -s -- "$config" "$tmp" || die "cannot create the link $tmp"
mv -fT -- "$tmp" "$docroot/authd.conf"

block=$(sed -e "s|@BASE@|$base|g" -e "s|@VERSION@|$version|g" "$here/conf/htaccess")
tmp=$(mktemp "$docroot/.htaccess.XXXXXX")
if [[ -f $htaccess ]] && grep -q '^# BEGIN authd$' "$htaccess"; then
  # Replace our block, keep the user's lines around it.
  BLOCK=$block awk '
    /^# BEGIN authd$/ { print ENVIRON["BLOCK"]; skipping = 1; next }
    /^# END authd$/   { skipping = 0; next }
    !skipping' "$htaccess" >"$tmp"
elif [[ -f $htaccess ]]; then
  { printf '%s\n\n' "$block"; cat "$htaccess"; } >"$tmp"
else
  printf '%s\n' "$block" >"$tmp"
fi
chmod 0644 "$tmp"
mv -fT -- "$tmp" "$htaccess"

# One request as the web server sends it over CGI (the environment as the
# only input; the program finds its config through the link beside it).
program=$docroot/authd.fcgi
answer=$(env -i PATH=/usr/bin:/bin GATEWAY_INTERFACE=CGI/1.1 REQUEST_METHOD=GET \
         SCRIPT_NAME="$base/authd.fcgi" PATH_INFO=/records "$program" </dev/null 2>&1 | head -n 1) || true
[[ $answer == "Status: 401"* ]] || die "authd answered a test request with '$answer' instead of 401"
printf '%s\n' "$version" >"$state/VERSION"

if [[ -n $previous ]]; then
  echo "authd: upgraded $previous -> $version in $docroot (users and signing key kept)"
else
  echo "authd: installed $version in $docroot"
fi
echo "  state:  $state (0700; $config_note)"
echo "  admin:  $state/authctl add NAME admin   (password on stdin)"
if [[ -n $url ]]; then
  echo "  URL:    $url/"
else
  echo "  URL:    https://YOUR-DOMAIN$base/   (sign-up: https://YOUR-DOMAIN$base/signup)"
fi
