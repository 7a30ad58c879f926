// What the redaction tests run on every adapter (in Node and in workerd, so
// it imports nothing): a conversation with credentials in a user turn, in
// tool-call arguments, in a tool result, in a fact, in a memory tool call
// and in an edited message, then enough turns to compact, summarize and
// embed; it returns every hook request and everything the controller
// reads back, for the caller to check against the adapter's raw bytes.
// The keys are fake, made for this test in the providers' formats.

export const SECRETS = {
  "openai-key": "sk-proj-lh6swshJDOS_tqXQG521cR1Cx9zHVpDRgxRhAkjps20O1b6I2SBfBJ7PUnulzmnF",
  "aws-access-key": "AKIAIC47H2HNCAELR7NM",
  "aws-secret-key": "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",
  "github-token": "ghp_rfEFhb6B66lmgcgONFU9nOrRr2PDhvnOv6KB",
  "stripe-key": "sk_live_PLbOvQDMVCyA2ErMwTXiaqspZTlx4YDE",
  "slack-token": "xoxb-855888803404-668660853110-LrEKqIKAJ0uVXqXmzpZACCVg",
  "url-password": "g2u0zRLQK55KhBcMq0",
  jwt: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MjQyIiwibmFtZSI6IkxpIFdlaSIsImlhdCI6MTc2NDYzMzYwMH0.xtCKE5wY73kW5A3wx0hemtpw9xy61MoW9j_FW8UpBM2",
};
const KEY_LINES = [
  "LvsYGRauKp2c4HsG+hvTlt9EEiTWMnLQkbPddGpu0D33uqZG5n+Qqb80nDo9CJoF",
  "7RqirjMMolnvu69I7L+I2ZQBTi7UWTaTDaQuw5MTRP2LQ9QY3oXl8PrIxkB0HL04",
  "G+VpmVXcI7zClUMvVow3o6+f4KDUUYExe33y4AV8yS4ddaAptZrw3Hak3SF691rG",
];
const PRIVATE_KEY = `-----BEGIN RSA PRIVATE KEY-----\n${KEY_LINES.join("\n")}\n-----END RSA PRIVATE KEY-----`;

export const PERSONAL = {
  email: "li.wei@example.cn",
  phone: "13912345678",
  "cn-id": "11010519900307451X",
  "card-number": "4111 1111 1111 1111",
};

/** Every string that must not be stored or sent to a hook once redacted. */
export const credentialValues = () => [...Object.values(SECRETS), ...KEY_LINES];
export const personalValues = () => Object.values(PERSONAL);

/** Which of `values` occur in `text`. */
export const leaked = (text, values) => values.filter((v) => text.includes(v));

/**
 * Runs the conversation on `storage` with `extra` create options; resolves
 * to { results, hookText, readable }: what add/remember returned, every
 * summarizer and embedder request as JSON text, and history, facts,
 * episodes, a context and the export as JSON text.
 */
export async function scenario(MemoryController, storage, extra = {}) {
  const S = SECRETS;
  const hooks = [];
  const summarizer = async (request) => {
    hooks.push(JSON.stringify(request));
    return "The user asked about a failing deploy; the assistant ran commands and read the environment.";
  };
  const embedder = async (texts) => {
    hooks.push(JSON.stringify(texts));
    return texts.map((t) => Float32Array.from([1 + (t.length % 5), 1, (t.charCodeAt(0) % 7) + 1]));
  };
  let now = 1_700_000_000_000;
  const options = {
    namespace: "redact-u",
    workingMemory: { maxTokens: 400 },
    foldAfter: 10,
    storage,
    summarizer,
    embedder,
    clock: () => (now += 1000),
    ...extra,
  };
  const memory = await MemoryController.create(options);
  const results = {};
  results.user = await memory.add({
    role: "user",
    content: `我的 OpenAI 密钥是 ${S["openai-key"]}，为什么一直 401？My email is ${PERSONAL.email}, phone ${PERSONAL.phone}.`,
  });
  results.call = await memory.add({
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_1",
        type: "function",
        function: {
          name: "run_shell",
          arguments: JSON.stringify({
            cmd: `AWS_ACCESS_KEY_ID=${S["aws-access-key"]} AWS_SECRET_ACCESS_KEY=${S["aws-secret-key"]} aws s3 ls`,
          }),
        },
      },
    ],
  });
  results.tool = await memory.add({
    role: "tool",
    tool_call_id: "call_1",
    content: JSON.stringify({
      env: { DATABASE_URL: `postgres://app:${S["url-password"]}@db.internal:5432/shop`, SESSION: S.jwt },
      deploy_key: PRIVATE_KEY,
    }),
  });
  results.fact = await memory.remember({
    key: "ci",
    text: `CI pushes with ${S["github-token"]}; 身份证 ${PERSONAL["cn-id"]}, 卡号 ${PERSONAL["card-number"]}`,
  });
  results.toolAnswer = await memory.callTool("remember", JSON.stringify({ text: `Billing uses the Stripe key ${S["stripe-key"]}` }));
  const draft = await memory.add({ role: "user", content: "draft" });
  results.edit = await memory.replace(draft.id, { role: "user", content: `Post to Slack with ${S["slack-token"]} please` });
  for (let i = 0; i < 30; i++) {
    await memory.add({
      role: i % 2 ? "assistant" : "user",
      content: `turn ${i}: the deploy to 成都 region step ${i} and its logs, build ${i * 37}`,
    });
  }
  await memory.flush();
  // Queries that quote a secret: the embedder gets them redacted.
  await memory.search(`OpenAI 密钥 ${S["openai-key"]} 401`);
  const context = await memory.buildContext({ query: `is ${S.jwt} still valid?`, maxTokens: 3000 });
  const readable = JSON.stringify([
    await memory.history(),
    await memory.facts(),
    await memory.episodes(),
    context,
    await memory.export({ embeddings: true }),
  ]);
  const summarized = (await memory.episodes()).length;
  await memory.close();
  return { results, hookText: hooks.join("\n"), readable, summarized };
}
