#!/usr/bin/env bash
# Makes sure MySQL/MariaDB answers at DATABASE_URL (default mysql://root@127.0.0.1:3306/payments):
# starts an installed mariadbd when nothing listens, installs it from Debian packages when absent
# (root only), allows root over TCP, and creates the database.
set -euo pipefail
URL="${1:-${DATABASE_URL:-mysql://root@127.0.0.1:3306/payments}}"
case "$URL" in mysql://*|mariadb://*) ;; *) echo "ensure-mariadb: $URL is not a MySQL URL, nothing to do" >&2; exit 0 ;; esac
rest="${URL#*://}"; hostport="${rest#*@}"; hostport="${hostport%%/*}"
HOST="${hostport%%:*}"; PORT="${hostport##*:}"; [ "$PORT" = "$HOST" ] && PORT=3306
DB="${rest##*/}"; DB="${DB%%\?*}"

listening() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

if ! listening; then
  if [ "$HOST" != "127.0.0.1" ] && [ "$HOST" != "localhost" ]; then
    echo "ensure-mariadb: nothing answers at $HOST:$PORT and it is not local" >&2; exit 1
  fi
  if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "ensure-mariadb: installing mariadb-server" >&2
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server) >/dev/null 2>&1 \
        || { echo "ensure-mariadb: apt-get install mariadb-server failed" >&2; exit 1; }
    else
      echo "ensure-mariadb: nothing listens at $HOST:$PORT and mariadbd is not installed" >&2; exit 1
    fi
  fi
  echo "ensure-mariadb: starting mariadbd" >&2
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql
  for _ in $(seq 1 60); do listening && break; sleep 0.5; done
  listening || { echo "ensure-mariadb: mariadbd did not start listening on $PORT" >&2; exit 1; }
  # Root over TCP with an empty password, as on the development machines.
  mysql -uroot -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('') OR unix_socket" 2>/dev/null || true
fi
if [ -n "$DB" ] && command -v mysql >/dev/null 2>&1; then
  user="${rest%%@*}"; [ "$user" = "$rest" ] && user=root; pass=""
  case "$user" in *:*) pass="${user#*:}"; user="${user%%:*}" ;; esac
  MYSQL_PWD="$pass" mysql -h "$HOST" -P "$PORT" -u "$user" -e "CREATE DATABASE IF NOT EXISTS \`$DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci" \
    || { echo "ensure-mariadb: could not create database $DB" >&2; exit 1; }
fi
