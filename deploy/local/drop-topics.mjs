// Deletes every Kafka topic whose name starts with the given prefix, on the
// brokers of KAFKA_BROKERS: the topics a stack of its own made for one run
// (with-redis-cluster-stack.sh), including those of runs that died before
// their cleanup. Prints what it deleted.
//   KAFKA_BROKERS=host:port node drop-topics.mjs PREFIX
import { Kafka, logLevel } from 'kafkajs';

async function main() {
  const prefix = process.argv[2];
  if (!prefix) throw new Error('usage: drop-topics.mjs PREFIX');
  const kafka = new Kafka({ clientId: 'drop-topics', brokers: (process.env.KAFKA_BROKERS ?? '').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    console.log(topics.length > 0 ? `deleted ${topics.join(', ')}` : `no topic starts with ${prefix}`);
  } finally {
    await admin.disconnect();
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
