import { GenericContainer, getContainerRuntimeClient, Wait, type StartedTestContainer } from 'testcontainers';

const PROBE_TIMEOUT_MS = 5_000;

/** undefined when a container engine answers quickly, else why not (printed, so a skip is never silent). */
export async function dockerUnavailable(file: string): Promise<string | undefined> {
  const probe = getContainerRuntimeClient().then(
    () => undefined,
    (err: unknown) => `no container runtime: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
  );
  const timeout = new Promise<string>((resolve) =>
    setTimeout(
      () => resolve(`container runtime probe timed out after ${PROBE_TIMEOUT_MS} ms`),
      PROBE_TIMEOUT_MS,
    ).unref(),
  );
  const reason = await Promise.race([probe, timeout]);
  if (reason) console.warn(`SKIP ${file}: ${reason}`);
  return reason;
}

/** The official InfluxDB 2 image, initialised by its DOCKER_INFLUXDB_INIT_* settings. */
export const INFLUX2 = { image: 'influxdb:2', token: 'test-admin-token-0123456789', org: 'cdn', bucket: 'analytics' };

export function influx2Environment(): Record<string, string> {
  return {
    DOCKER_INFLUXDB_INIT_MODE: 'setup',
    DOCKER_INFLUXDB_INIT_USERNAME: 'admin',
    DOCKER_INFLUXDB_INIT_PASSWORD: 'admin-password',
    DOCKER_INFLUXDB_INIT_ORG: INFLUX2.org,
    DOCKER_INFLUXDB_INIT_BUCKET: INFLUX2.bucket,
    DOCKER_INFLUXDB_INIT_RETENTION: '0',
    DOCKER_INFLUXDB_INIT_ADMIN_TOKEN: INFLUX2.token,
  };
}

/** A started InfluxDB 2 container (the official image, set up as INFLUX2 says) and its URL. */
export async function startInflux2(): Promise<{ container: StartedTestContainer; url: string }> {
  const container = await new GenericContainer(INFLUX2.image)
    .withEnvironment(influx2Environment())
    .withExposedPorts(8086)
    .withWaitStrategy(Wait.forHttp('/health', 8086).forStatusCode(200))
    .withStartupTimeout(120_000)
    .start();
  return { container, url: `http://${container.getHost()}:${container.getMappedPort(8086)}` };
}
