// kafkajs side of TestForwardKafkajs: reads commands from stdin, one JSON
// object a line, and answers each with one JSON line on stdout.
//   {"op":"produce","topic":T,"messages":[{"key":K,"value":V},...]} -> {"ok":true}
//   {"op":"consume","topic":T,"count":N}  -> {"ok":true,"records":[{"partition":P,"offset":"O","key":K,"value":V},...]}
//   {"op":"sendOnce","topic":T,"messages":[{"key":K,"value":V,"partition":P?},...]} -> {"ok":true}
// The producer is idempotent (KAFKAJS_IDEMPOTENT=0 turns it off), sends
// with acks=-1 and one request in flight, with kafkajs' Java-compatible
// murmur2 partitioner; KAFKAJS_METADATA_MAX_AGE sets metadataMaxAge (ms).
// KAFKAJS_SSL_CA (a PEM file) turns TLS on; KAFKAJS_SASL_USER and
// KAFKAJS_SASL_PASSWORD log in with SCRAM-SHA-512 (a delegation token with
// KAFKAJS_SASL_TOKEN=1). When the producer
// cannot connect, every command is answered with that error.
const fs = require('fs');
const readline = require('readline');
const { Kafka, Partitioners, logLevel } = require('kafkajs');

const kafka = new Kafka({
  clientId: 'kafkajs-through-kmeta',
  brokers: [process.argv[2]],
  logLevel: logLevel.WARN,
  retry: { retries: 30, initialRetryTime: 50, maxRetryTime: 1000 },
  ssl: process.env.KAFKAJS_SSL_CA ? { ca: [fs.readFileSync(process.env.KAFKAJS_SSL_CA)], servername: '127.0.0.1' } : undefined,
  sasl: process.env.KAFKAJS_SASL_USER ? sasl() : undefined,
});

// sasl is SCRAM-SHA-512 as KAFKAJS_SASL_USER; with KAFKAJS_SASL_TOKEN=1 the
// user and password are a delegation token's id and HMAC, and kafkajs'
// own SCRAM client, given through its authenticationProvider hook (kafkajs
// has no token option), adds the tokenauth=true extension (KIP-48) to its
// client-first message, which it also signs.
function sasl() {
  const s = { mechanism: 'scram-sha-512', username: process.env.KAFKAJS_SASL_USER, password: process.env.KAFKAJS_SASL_PASSWORD };
  if (process.env.KAFKAJS_SASL_TOKEN !== '1') return s;
  const { SCRAM, DIGESTS } = require('kafkajs/src/broker/saslAuthenticator/scram');
  class TokenSCRAM extends SCRAM {
    firstMessageBare() { return super.firstMessageBare() + ',tokenauth=true'; }
  }
  s.authenticationProvider = ({ host, port, logger, saslAuthenticate }) => {
    const scram = new TokenSCRAM(s, host, port, logger, saslAuthenticate, DIGESTS.SHA512);
    return { authenticate: () => scram.authenticate() };
  };
  return s;
}
const producer = kafka.producer({
  idempotent: process.env.KAFKAJS_IDEMPOTENT !== '0',
  maxInFlightRequests: 1,
  createPartitioner: Partitioners.DefaultPartitioner,
  metadataMaxAge: Number(process.env.KAFKAJS_METADATA_MAX_AGE || 500),
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
  // A failed connect (a refused login) is the answer to every command.
  let connectError = null;
  await producer.connect().catch((e) => { connectError = e; });
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    const cmd = JSON.parse(line);
    try {
      if (connectError) throw connectError;
      if (cmd.op === 'produce') {
        // One send() per key, in order: each send then goes to one
        // partition, so to one broker. A send() spanning brokers can lose
        // acknowledged messages in kafkajs 2.2.4 when a leader moves (see
        // TestKafkajsSendAcrossBrokersLosesMovedPartition).
        const byKey = new Map();
        for (const m of cmd.messages) {
          if (!byKey.has(m.key)) byKey.set(m.key, []);
          byKey.get(m.key).push(m);
        }
        for (const messages of byKey.values()) {
          await producer.send({ topic: cmd.topic, acks: -1, messages });
        }
        console.log(JSON.stringify({ ok: true }));
      } else if (cmd.op === 'sendOnce') {
        // One send() for every message, whatever partitions and brokers
        // they go to.
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
