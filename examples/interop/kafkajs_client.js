// kafkajs side of TestForwardKafkajs: reads commands from stdin, one JSON
// object a line, and answers each with one JSON line on stdout.
//   {"op":"produce","topic":T,"messages":[{"key":K,"value":V},...]} -> {"ok":true}
//   {"op":"consume","topic":T,"count":N}  -> {"ok":true,"records":[{"partition":P,"offset":"O","key":K,"value":V},...]}
// The producer sends with acks=-1 and one request in flight, with
// kafkajs' Java-compatible murmur2 partitioner.
const readline = require('readline');
const { Kafka, Partitioners, logLevel } = require('kafkajs');

const kafka = new Kafka({
  clientId: 'kafkajs-through-kmeta',
  brokers: [process.argv[2]],
  logLevel: logLevel.WARN,
  retry: { retries: 30, initialRetryTime: 50, maxRetryTime: 1000 },
});
const producer = kafka.producer({
  idempotent: false, // see TestForwardKafkajs
  maxInFlightRequests: 1,
  createPartitioner: Partitioners.DefaultPartitioner,
  metadataMaxAge: 500,
});

async function consume(topic, count) {
  const consumer = kafka.consumer({ groupId: 'kafkajs-through-kmeta-' + Date.now(), metadataMaxAge: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  // A group consumer may deliver an offset twice (after a rebalance or a
  // retried fetch): records are kept by partition and offset, so that only
  // a producer's duplicates (one value at two offsets) remain.
  const byOffset = new Map();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(), 60000);
    consumer.run({
      eachMessage: async ({ partition, message }) => {
        byOffset.set(partition + ':' + message.offset,
          { partition, offset: message.offset, key: message.key.toString(), value: message.value.toString() });
        if (byOffset.size >= count) { clearTimeout(timer); resolve(); }
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  return [...byOffset.values()];
}

async function main() {
  await producer.connect();
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    const cmd = JSON.parse(line);
    try {
      if (cmd.op === 'produce') {
        await producer.send({ topic: cmd.topic, acks: -1, messages: cmd.messages });
        console.log(JSON.stringify({ ok: true }));
      } else if (cmd.op === 'consume') {
        await producer.disconnect();
        const records = await consume(cmd.topic, cmd.count);
        console.log(JSON.stringify({ ok: true, records }));
      }
    } catch (e) {
      console.log(JSON.stringify({ ok: false, error: String(e && e.stack || e) }));
    }
  }
  process.exit(0);
}
main().catch((e) => { console.error(e); process.exit(1); });
