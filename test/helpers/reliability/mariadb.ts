// A private MariaDB server for the reliability suite: its own datadir, port, socket and pid file,
// no option files read (--no-defaults), so stopping and starting it never touches the shared
// server on 3306. Created on first use with mariadb-install-db; root has no password over TCP.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';

export interface PrivateMariaDbOptions {
  port: number;
  dataDir: string;
  socket: string;
  pidFile: string;
  logFile: string;
}

const SERVER_CANDIDATES = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld', '/usr/bin/mariadbd'];
const INSTALLER_CANDIDATES = ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'];

function findExecutable(candidates: string[], name: string): string {
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) throw new Error(`${name} is not installed: apt-get install -y mariadb-server`);
  return found;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class PrivateMariaDb {
  constructor(readonly options: PrivateMariaDbOptions) {}

  /** Root over TCP to this server, without a database. */
  connect(): Promise<mysql.Connection> {
    return mysql.createConnection({ host: '127.0.0.1', port: this.options.port, user: 'root', password: '' });
  }

  private installed(): boolean {
    return fs.existsSync(path.join(this.options.dataDir, 'mysql', 'user.frm'))
      || fs.existsSync(path.join(this.options.dataDir, 'mysql', 'global_priv.frm'));
  }

  private install(): void {
    fs.rmSync(this.options.dataDir, { recursive: true, force: true });
    const args = ['--no-defaults', `--datadir=${this.options.dataDir}`, '--auth-root-authentication-method=normal', '--skip-test-db'];
    if (isRoot()) args.push('--user=mysql');
    execFileSync(findExecutable(INSTALLER_CANDIDATES, 'mariadb-install-db'), args, { stdio: 'ignore' });
  }

  /** The pid of a server this suite started earlier (this run or an aborted one), if it still runs. */
  runningPid(): number | null {
    if (!fs.existsSync(this.options.pidFile)) return null;
    const pid = Number(fs.readFileSync(this.options.pidFile, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return null;
    const cmdline = fs.existsSync(`/proc/${pid}/cmdline`) ? fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
    return cmdline.includes(`--datadir=${this.options.dataDir}`) ? pid : null;
  }

  /**
   * A new, empty datadir: a raw scan of the server's files (redo and undo logs included) then sees
   * only what this run wrote. Stops a server an aborted run left on it first.
   */
  async recreate(): Promise<void> {
    await this.stop();
    this.install();
  }

  async start(): Promise<void> {
    if (this.runningPid() !== null) return this.waitUntilReady();
    if (!this.installed()) this.install();
    fs.mkdirSync(path.dirname(this.options.logFile), { recursive: true });
    // The server runs as `mysql` when we are root: it must be able to write its log.
    fs.appendFileSync(this.options.logFile, '');
    if (isRoot()) execFileSync('chown', ['mysql', this.options.logFile]);
    const args = [
      '--no-defaults',
      `--datadir=${this.options.dataDir}`,
      `--port=${this.options.port}`,
      '--bind-address=127.0.0.1',
      `--socket=${this.options.socket}`,
      `--pid-file=${this.options.pidFile}`,
      `--log-error=${this.options.logFile}`,
      '--skip-name-resolve',
      '--innodb-buffer-pool-size=64M',
      '--max-connections=500',
    ];
    if (isRoot()) args.push('--user=mysql');
    // Detached: the server outlives whichever test started it; stop() finds it by its pid file.
    const child = spawn(findExecutable(SERVER_CANDIDATES, 'mariadbd'), args, { detached: true, stdio: 'ignore' });
    child.unref();
    await this.waitUntilReady();
  }

  private async waitUntilReady(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const connection = await this.connect();
        await connection.query('SELECT 1');
        await connection.end();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`private MariaDB on ${this.options.port} did not answer: ${String(error)}; see ${this.options.logFile}`);
        await sleep(200);
      }
    }
  }

  /** A clean shutdown (SIGTERM), waited for; SIGKILL only if it hangs. */
  async stop(timeoutMs = 60_000): Promise<void> {
    const pid = this.runningPid();
    if (pid === null) return;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + timeoutMs;
    while (alive(pid)) {
      if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
      await sleep(100);
    }
  }

  /** Drops and recreates one database on this server. */
  async recreateDatabase(name: string): Promise<void> {
    if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`invalid database name ${name}`);
    const connection = await this.connect();
    try {
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    } finally {
      await connection.end();
    }
  }
}
