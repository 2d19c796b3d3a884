#!/bin/sh
# The official redis image's server runs with protected mode off (other containers reach it
# on its network; without a password, Debian's refuses them): the same here, unless a later
# argument says otherwise. A configuration file, if given, stays the first argument.
set -e
if [ "${1:-}" = redis-server ]; then
	shift
	case "${1:-}" in
		'' | -*) set -- redis-server --protected-mode no "$@" ;;
		*)
			config="$1"
			shift
			set -- redis-server "$config" --protected-mode no "$@"
			;;
	esac
fi
exec "$@"
