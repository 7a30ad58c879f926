#!/usr/bin/env node
// Writes tests/fixtures/conversation/script.json (and tools.json) from the
// hand-written dialogue below.
//
//   node scripts/gen-conversation.mjs          write both files, print stats
//   node scripts/gen-conversation.mjs --check  fail if the files on disk differ
//
// The dialogue is fixed text; this script only adds what is tedious to write by
// hand: tool-call ids (from a seeded PRNG, so output is identical every run),
// JSON-encoding of tool arguments and results, and validation of the result
// (OpenAI chat shape, every tool message answers a call of the assistant
// message right before it, ids unique, every argument/result is valid JSON).
//
// Story: Lin Wei (林薇), a product manager in Shanghai, talks to her assistant
// over a few weeks: preferences first (peanut allergy, bullet points, answer
// Chinese topics in Chinese, not too spicy), then a Chengdu business trip, a
// TypeScript build, a hotpot shopping list, an HSK 4 plan for her partner
// Daniel, an expense report, and finally questions that only make sense if
// the early preferences and facts were remembered, including one preference
// that she changes (language) so the newest value must win.

import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../bench/corpus.mjs";

const OUT_DIR = fileURLToPath(new URL("../tests/fixtures/conversation/", import.meta.url));

// ----------------------------------------------------------------- helpers

/** Template tag: strip the common indentation and the first/last blank line. */
function t(strings, ...values) {
  let s = strings[0];
  values.forEach((v, i) => (s += String(v) + strings[i + 1]));
  const lines = s.split("\n");
  if (lines[0].trim() === "") lines.shift();
  if (lines.length && lines[lines.length - 1].trim() === "") lines.pop();
  const indent = Math.min(
    ...lines.filter((l) => l.trim() !== "").map((l) => l.match(/^ */)[0].length),
  );
  return lines.map((l) => l.slice(indent)).join("\n");
}


const rand = mulberry32(20250417);
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const newCallId = () => "call_" + Array.from({ length: 24 }, () => ALPHABET[Math.floor(rand() * 62)]).join("");

/** JSON with every non-ASCII character as \uXXXX, as Python's json.dumps does by default. */
const asciiJson = (v) => JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));

const messages = [];
const system = (content) => messages.push({ role: "system", content });
const user = (content) => messages.push({ role: "user", content });
const assistant = (content) => messages.push({ role: "assistant", content });

/** One tool call and the result its tool returns. */
const call = (name, args, result, { ascii = false } = {}) => ({ name, args, result, ascii });

/** An assistant message with tool_calls, then one tool message per call. */
function tools(calls, content = null) {
  const withIds = calls.map((c) => ({ ...c, id: newCallId() }));
  messages.push({
    role: "assistant",
    content,
    tool_calls: withIds.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    })),
  });
  for (const c of withIds) {
    messages.push({
      role: "tool",
      tool_call_id: c.id,
      content: c.ascii ? asciiJson(c.result) : JSON.stringify(c.result),
    });
  }
}

// -------------------------------------------------------- tool definitions

const fn = (name, description, properties, required) => ({
  type: "function",
  function: {
    name,
    description,
    parameters: { type: "object", properties, required, additionalProperties: false },
  },
});
const str = (description, extra = {}) => ({ type: "string", description, ...extra });
const num = (description, extra = {}) => ({ type: "number", description, ...extra });
const int = (description, extra = {}) => ({ type: "integer", description, ...extra });
const date = (description) => ({ type: "string", format: "date", description });

const TOOLS = [
  fn("search_flights", "Search scheduled flights. Times are local; prices in CNY per passenger.", {
    from: str("IATA airport code, or several separated by commas, e.g. \"SHA,PVG\""),
    to: str("IATA airport code, or several separated by commas"),
    depart_date: date("Departure date"),
    depart_after: str("Earliest departure time, HH:MM"),
    arrive_before: str("Latest arrival time, HH:MM"),
    passengers: int("Number of passengers", { minimum: 1, default: 1 }),
  }, ["from", "to", "depart_date"]),
  fn("search_hotels", "Search hotels by area and price. Prices are per night in CNY.", {
    city: str("City name"),
    near: str("Landmark, street or district"),
    check_in: date("Check-in date"),
    check_out: date("Check-out date"),
    max_price: num("Maximum price per night", { minimum: 0 }),
    style: str("Kind of place", { enum: ["any", "business", "boutique", "hostel"] }),
  }, ["city", "check_in", "check_out"]),
  fn("get_weather", "Daily weather forecast for a city.", {
    city: str("City name"),
    start_date: date("First day"),
    days: int("Number of days", { minimum: 1, maximum: 10 }),
  }, ["city", "start_date"]),
  fn("search_restaurants", "Search restaurants near a place, sorted by rating.", {
    near: str("Landmark, street or address"),
    cuisine: str("Cuisine", { enum: ["sichuan", "hotpot", "cantonese", "shanghainese", "western", "japanese", "any"] }),
    max_price_per_person: num("In CNY", { minimum: 0 }),
    spice_level: int("0 = not spicy … 3 = very spicy; results can serve at most this level", { minimum: 0, maximum: 3 }),
    exclude_ingredients: { type: "array", items: { type: "string" }, description: "Allergens or ingredients the party cannot eat" },
    party_size: int("Number of people", { minimum: 1 }),
    private_room: { type: "boolean", description: "Require a private room" },
  }, ["near"]),
  fn("run_command", "Run a shell command in the user's project and return its output.", {
    cmd: str("The command line"),
    cwd: str("Working directory"),
    timeout_ms: int("Kill the command after this many milliseconds", { default: 120000 }),
  }, ["cmd", "cwd"]),
  fn("read_file", "Read a text file from the user's project.", {
    path: str("Path, relative to the project root or absolute"),
    start_line: int("First line to return, 1-based", { minimum: 1 }),
    end_line: int("Last line to return, inclusive", { minimum: 1 }),
  }, ["path"]),
  fn("add_to_list", "Add items to one of the user's shopping lists.", {
    list: str("List name; created if missing"),
    items: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, qty: { type: "string" }, note: { type: "string" } },
        required: ["name"],
      },
    },
  }, ["list", "items"]),
  fn("check_price", "Look up current prices for items at one store.", {
    store: str("Store name", { enum: ["盒马", "山姆会员店", "叮咚买菜"] }),
    items: { type: "array", items: { type: "string" } },
    city: str("City", { default: "上海" }),
  }, ["store", "items"]),
  fn("create_calendar_events", "Create (possibly recurring) events in a calendar the user can write to.", {
    calendar: str("Calendar name"),
    events: {
      type: "array",
      items: {
        type: "object",
        properties: {
          title: { type: "string" },
          start: { type: "string", format: "date-time" },
          end: { type: "string", format: "date-time" },
          recurrence: { type: "string", description: "RFC 5545 RRULE" },
          notes: { type: "string" },
        },
        required: ["title", "start", "end"],
      },
    },
  }, ["calendar", "events"]),
  fn("update_calendar_event", "Move one occurrence of an event.", {
    calendar: str("Calendar name"),
    event_id: str("Event id"),
    occurrence_date: date("Which occurrence to change, for recurring events"),
    new_start: { type: "string", format: "date-time" },
    new_end: { type: "string", format: "date-time" },
  }, ["calendar", "event_id", "new_start", "new_end"]),
  fn("parse_receipt", "Extract merchant, date, line items and totals from a receipt image or PDF.", {
    file: str("Path of the uploaded receipt"),
  }, ["file"]),
  fn("convert_currency", "Convert an amount using the reference rate of a given day.", {
    amount: num("Amount in the source currency"),
    from: str("ISO 4217 code"),
    to: str("ISO 4217 code"),
    date: date("Rate date"),
  }, ["amount", "from", "to", "date"]),
];

// ============================================================== dialogue ==

system(t`
  You are Xiaoyu (小雨), a bilingual Chinese/English personal assistant in a chat app.
  Be concise and accurate. Follow the preferences the user tells you and keep following them until the user changes them.
  Use the tools for anything live (flights, hotels, weather, restaurants, prices, files, commands, calendars, receipts, exchange rates) and never make up a tool result.
  You cannot make bookings or payments; say so and tell the user how to do it.
`);

// -------------------------------------------------- 1. preferences (zh/en)

user("你好小雨！我刚开始用你，先跟你说几件事，以后都要记住哦。");
assistant("你好！很高兴认识你。请说，我会把这些当成长期偏好记下来，之后的对话里都照着做。");

user("第一件事，也是最重要的：记住，我对花生过敏，而且挺严重的，吃到一点点喉咙就会发紧。");
assistant(t`
  记住了，这一条我会特别注意：
  - 你对花生严重过敏，少量也不行。
  - 以后推荐餐厅、菜谱、零食的时候，我会先排除花生和花生制品：花生油、花生酱、花生碎、含花生的酱料。
  - 看不出有没有花生的东西，我会提醒你先跟店家确认。
  - 出门的时候记得随身带好医生开的抗过敏药。
`);

user("Second thing: I prefer answers in bullet points. Long paragraphs are hard to read on my phone.");
assistant(t`
  Got it:
  - I'll use bullet points by default, in both Chinese and English.
  - Short points, the most important one first.
  - Numbered steps for how-tos, and a table when we compare options.
`);

user("第三，聊中文话题的时候请用中文回答，英文话题就用英文。我工作里两种语言都用。");
assistant(t`
  好的：
  - 中文话题，我用中文回答。
  - 英文话题，我用英文回答。
  - 中英混着说的时候，跟着这个话题的主要语言走；产品名、报错信息这类专有名词保留原文。
`);

user("我叫林薇，在上海做产品经理。我男朋友Daniel是英国人，正在学中文。");
assistant(t`
  你好，林薇！记下了：
  - 你在上海，做产品经理。
  - Daniel是你男朋友，英国人，在学中文。
  - 以后要帮他安排学习或者做翻译，随时叫我。
`);

user("哦对了，我不太能吃辣。微辣可以，中辣以上就受不了了。");
assistant(t`
  明白：
  - 辣度上限：微辣。
  - 推荐川菜、湘菜或者火锅的时候，我会优先选不辣或者能做微辣的，火锅默认建议鸳鸯锅。
`);

user("好，就这些。下周要去成都出差，回头找你帮我安排！");
assistant("没问题！时间和行程定了就发给我，机票、酒店、天气、吃饭的地方我都可以帮你查。");

// --------------------------------------------------------- 2. Chengdu (zh)

user("小雨，成都的事来了。4月17号周四到19号周六出差：17号下午去成都办公室，18号中午请客户吃饭、下午开季度会。19号开始自己玩，Daniel周五晚上下班飞过来，我们21号周一一起回上海。");
assistant(t`
  收到，我先理一下：
  - 4月17日（周四）—19日（周六）：出差
    - 17日下午：成都办公室
    - 18日中午：客户午餐；下午：季度会议
  - 18日（周五）晚上：Daniel从上海飞成都
  - 19日（周六）—21日（周一）：你们两个人的私人行程
  - 21日（周一）：一起回上海
  先帮你查17号去成都的机票？
`);

user("对，帮我查17号早上上海飞成都的，最好11点前落地，下午要开会。");
tools([
  call("search_flights", { from: "PVG", to: "TFU", depart_date: "2025-04-17", arrive_before: "11:30" }, {
    flights: [
      { flight_no: "HO1029", airline: "吉祥航空", depart: "06:55", arrive: "10:05", price_cny: 860, checked_bag_kg: 0 },
      { flight_no: "MU5403", airline: "东方航空", depart: "08:05", arrive: "11:20", price_cny: 1080, checked_bag_kg: 20 },
    ],
  }),
  call("search_flights", { from: "SHA", to: "CTU", depart_date: "2025-04-17", arrive_before: "11:30" }, {
    flights: [
      { flight_no: "MU5401", airline: "东方航空", depart: "07:30", arrive: "10:35", price_cny: 1240, checked_bag_kg: 20 },
    ],
    note: "3U8962 10:30-13:40 ¥960 不满足到达时间条件，未列出",
  }),
]);
assistant(t`
  找到3个11点半前到的航班：
  - 吉祥 HO1029：浦东 06:55 → 天府 10:05，¥860，特价舱不含托运
  - 东航 MU5401：虹桥 07:30 → 双流 10:35，¥1,240，含20kg托运
  - 东航 MU5403：浦东 08:05 → 天府 11:20，¥1,080，稍微晚一点
  - 天府机场离市区比双流远，坐地铁进城要40多分钟；如果办公室在市中心，落地双流能省半小时左右。
`);

user("我住静安，去虹桥方便。就MU5401吧，公司报销，贵一点没关系。我会带个小箱子，要托运吗？");
assistant(t`
  - 好，就MU5401：虹桥 07:30 起飞，10:35 到双流。
  - 我这边不能直接下单，你在公司差旅平台或者东航App订就行。
  - 经济舱含20kg托运；不过箱子在20寸以内、8kg以下的话可以直接带上飞机，落地不用等行李，去办公室更快。
  - 早班机安检人多，最好6:30前到虹桥T2。
`);

user("好，我自己在差旅平台订。Daniel的航班也帮我看一下，18号周五晚上，他6点下班，从浦东走。");
tools([
  call("search_flights", { from: "PVG", to: "TFU", depart_date: "2025-04-18", depart_after: "19:00" }, {
    error: { code: "UPSTREAM_UNAVAILABLE", message: "航班查询服务暂时不可用，请稍后重试", retry_after_ms: 1500 },
  }),
]);
tools([
  call("search_flights", { from: "PVG", to: "TFU", depart_date: "2025-04-18", depart_after: "19:00" }, {
    flights: [
      { flight_no: "HO1045", airline: "吉祥航空", depart: "19:50", arrive: "23:05", price_cny: 720, checked_bag_kg: 0 },
      { flight_no: "MU5409", airline: "东方航空", depart: "20:40", arrive: "23:55", price_cny: 1150, checked_bag_kg: 20 },
    ],
  }),
], "航班查询服务刚才没有响应，我再试一次。");
assistant(t`
  Daniel可以选这两个：
  - 吉祥 HO1045：浦东 19:50 → 天府 23:05，¥720，不含托运
  - 东航 MU5409：浦东 20:40 → 天府 23:55，¥1,150，含20kg托运
  - 他6点下班，坐地铁到浦东机场要1小时出头，赶19:50的航班有点紧，最好请假早走半小时。
  - 只背一个双肩包的话，HO1045就够了，也便宜。
`);

user("他说就HO1045，会早点走。落地都11点多了，天府机场到市区怎么走？");
assistant(t`
  - 打车最省心：到春熙路一带大约50分钟，车费¥120—150。
  - 地铁18号线晚上的末班车比较早，23点多落地很可能赶不上（以当天时刻表为准）。
  - 机场大巴有夜间班次，但要等车，到市区也要1小时左右。
  - 建议他落地直接打车，在App里把行程分享给你。
`);

user("好。酒店帮我找一下，17、18号两晚公司报销，标准是每晚450以内，最好在春熙路附近。");
tools([
  call("search_hotels", { city: "成都", near: "春熙路", check_in: "2025-04-17", check_out: "2025-04-19", max_price: 450, style: "business" }, {
    hotels: [
      { name: "全季酒店（成都春熙路店）", price: 418, rating: 4.7, breakfast: false, walk_to_metro_min: 3 },
      { name: "亚朵酒店（成都太古里店）", price: 449, rating: 4.8, breakfast: true, walk_to_metro_min: 8 },
      { name: "汉庭酒店（春熙路步行街店）", price: 268, rating: 4.3, breakfast: false, walk_to_metro_min: 5, note: "房间约15㎡" },
    ],
  }),
]);
assistant(t`
  三家都在标准以内：
  - 全季酒店（春熙路店）：¥418/晚，评分4.7，离地铁2号线春熙路站步行3分钟
  - 亚朵酒店（太古里店）：¥449/晚，评分4.8，含早餐，刚好卡在标准线内
  - 汉庭（春熙路步行街店）：¥268/晚，评分4.3，便宜，但房间只有15㎡左右
  - 早上要出门见客户的话，全季离地铁最近；想住得舒服一点就选亚朵。
`);

user("全季吧，两晚836，挺好。19号开始跟Daniel住，想换个有特色一点的，预算每晚600。");
tools([
  call("search_hotels", { city: "成都", near: "宽窄巷子", check_in: "2025-04-19", check_out: "2025-04-21", max_price: 600, style: "boutique" }, {
    hotels: [
      { name: "院子里·宽窄巷子民宿", price: 560, rating: 4.9, breakfast: true, features: ["川西院落", "管家可代订熊猫基地门票"], walk_to_metro_min: 10 },
      { name: "文殊坊精品酒店", price: 520, rating: 4.7, breakfast: true, features: ["茶室", "近文殊院"], walk_to_metro_min: 4 },
      { name: "锦江宾馆（老楼）", price: 588, rating: 4.5, breakfast: false, features: ["老字号"], walk_to_metro_min: 6 },
    ],
  }),
]);
assistant(t`
  有特色的选了三家：
  - 院子里·宽窄巷子民宿：¥560/晚，评分4.9，川西老院子，含早餐，管家能帮忙约熊猫基地的票
  - 文殊坊精品酒店：¥520/晚，评分4.7，有茶室，离地铁只要4分钟
  - 锦江宾馆（老楼）：¥588/晚，评分4.5，老字号，但不含早餐
  - 我最推荐院子里：走路就能到宽窄巷子，Daniel应该会喜欢这种老院子。
`);

user("院子那个好！就它了。这几天成都天气怎么样？");
tools([
  call("get_weather", { city: "成都", start_date: "2025-04-17", days: 5 }, {
    city: "成都",
    daily: [
      { date: "2025-04-17", condition: "多云", min: 15, max: 24, rain_prob: 0.1 },
      { date: "2025-04-18", condition: "多云转小雨", min: 14, max: 22, rain_prob: 0.6 },
      { date: "2025-04-19", condition: "小雨", min: 13, max: 19, rain_prob: 0.8 },
      { date: "2025-04-20", condition: "阴转多云", min: 14, max: 23, rain_prob: 0.2 },
      { date: "2025-04-21", condition: "晴", min: 16, max: 26, rain_prob: 0.05 },
    ],
    unit: "℃",
  }, { ascii: true }),
]);
assistant(t`
  - 4月17日（周四）：多云，15—24℃
  - 4月18日（周五）：多云转小雨，14—22℃
  - 4月19日（周六）：小雨，13—19℃
  - 4月20日（周日）：阴转多云，14—23℃
  - 4月21日（周一）：晴，16—26℃
  - 带一把折叠伞和一件薄外套，早晚温差大。周六下雨，适合安排茶馆、博物馆这类室内的地方。
`);

user("18号中午请客户吃饭，4个人，对方有个美国人Mr. Harris，不太能吃辣。找个正式一点的川菜馆，人均150以内，春熙路或者太古里附近。");
tools([
  call("search_restaurants", {
    near: "成都太古里",
    cuisine: "sichuan",
    max_price_per_person: 150,
    spice_level: 1,
    exclude_ingredients: ["花生", "peanut"],
    party_size: 4,
    private_room: true,
  }, {
    results: [
      { name: "芙蓉小馆（太古里店）", rating: 4.8, price_per_person: 128, private_room: true, signature: ["开水白菜", "鸡豆花", "糖醋排骨"], allergen_notes: "宫保虾球含花生，可做无花生版；其余招牌菜不含花生" },
      { name: "锦官城川菜", rating: 4.6, price_per_person: 105, private_room: false, signature: ["回锅肉", "蒜泥白肉", "麻婆豆腐"], allergen_notes: "部分凉菜淋红油，红油里可能有花生碎" },
      { name: "蜀韵轩", rating: 4.5, price_per_person: 142, private_room: true, signature: ["樟茶鸭", "清蒸江团", "东坡肘子"], allergen_notes: null },
    ],
    filtered_out: [{ name: "老巷麻婆豆腐", reason: "多数菜品中辣以上" }],
  }),
]);
assistant(t`
  按你的花生过敏筛过一遍，推荐这三家：
  - 芙蓉小馆（太古里）：人均¥128，有包间，招牌开水白菜、鸡豆花、糖醋排骨，大部分菜不辣，很适合外国客户
  - 蜀韵轩：人均¥142，有包间，中式装修，樟茶鸭和清蒸江团都不辣
  - 锦官城川菜：人均¥105，没有包间，环境比较热闹，凉菜的红油可能有花生碎
  - ⚠️ 芙蓉小馆的宫保虾球含花生，虽然能做无花生版，你还是别点，避免交叉污染。
  - 首推芙蓉小馆：安静、有包间、口味清淡，Mr. Harris也能吃得惯。
`);

user("好，就芙蓉小馆。帮我想想点什么菜，4个人。");
assistant(t`
  4个人点6道菜加主食就够了：

  | 菜名 | 辣度 | 说明 |
  |---|---|---|
  | 开水白菜 | 不辣 | 清汤名菜，适合开场 |
  | 鸡豆花 | 不辣 | 看着像豆花，其实是鸡肉做的，外国客人一般很喜欢 |
  | 糖醋排骨 | 不辣 | 酸甜口，冷热都好吃 |
  | 清蒸江团 | 不辣 | 四川的江鱼，肉嫩刺少 |
  | 蒜泥白肉 | 微辣 | 可以让厨房少放红油 |
  | 干煸四季豆 | 微辣 | 下饭 |
  | 鸡汤抄手（每人一碗） | 不辣 | 当主食 |

  - ⚠️ 别点担担面：很多做法会撒花生碎。
  - 人均大概¥115—130，在你的预算里。
  - 订包间的时候跟餐厅说一句“有客人对花生过敏”，让后厨注意。
`);

user("太周到了，谢谢！21号回上海的航班也看一下吧，下午或者傍晚，两个人。");
tools([
  call("search_flights", { from: "CTU,TFU", to: "SHA,PVG", depart_date: "2025-04-21", depart_after: "14:00", passengers: 2 }, {
    flights: [
      { flight_no: "3U8961", airline: "四川航空", from: "CTU", to: "SHA", depart: "16:05", arrive: "18:50", price_cny: 1020, checked_bag_kg: 20 },
      { flight_no: "MU5410", airline: "东方航空", from: "TFU", to: "PVG", depart: "18:30", arrive: "21:15", price_cny: 980, checked_bag_kg: 20 },
    ],
  }),
]);
assistant(t`
  - 川航 3U8961：双流 16:05 → 虹桥 18:50，¥1,020/人
  - 东航 MU5410：天府 18:30 → 浦东 21:15，¥980/人
  - 从宽窄巷子去双流只要30分钟左右，去天府要1小时以上。
  - 第二天要上班的话，3U8961到虹桥早、离你家也近，更轻松。
`);

user("3U8961吧，到虹桥离家近。这个是私人行程，我自己付。");
assistant(t`
  好，记下了：
  - 回程：4月21日 3U8961，双流 16:05 → 虹桥 18:50，两个人
  - 私人行程，自费；报销的时候不要算进去。
`);

user("那19、20号两天怎么玩？Daniel想看熊猫，我想喝茶、逛老街。");
assistant(t`
  按天气排了一下，熊猫放在不下雨的周日：

  **4月19日（周六，小雨）**
  - 上午：睡个懒觉，11点左右去院子里民宿，先寄存行李
  - 中午：宽窄巷子附近吃午饭
  - 下午：人民公园鹤鸣茶社喝盖碗茶，雨天坐在棚下听雨很舒服
  - 晚上：太古里、IFS逛街，看楼上的爬墙熊猫

  **4月20日（周日，阴转多云）**
  - 7:00出发去大熊猫基地，早上熊猫最活跃
  - 下午：武侯祠 + 锦里
  - 晚上：火锅（鸳鸯锅，你吃清汤那边）

  **4月21日（周一，晴）**
  - 上午：杜甫草堂或文殊院
  - 13:30回民宿拿行李，14:30出发去双流机场
`);

user("熊猫基地门票多少钱？要提前订吗？");
assistant(t`
  - 门票¥55，园区很大，观光车单程¥10，建议坐。
  - 周末人多，最好提前在官方小程序实名预约（以官方最新规定为准）。
  - Daniel用护照预约就行；民宿管家也说可以帮忙代订。
`);

user("周日晚上的火锅推荐一家？不要太辣的，Daniel能吃辣我不行。");
tools([
  call("search_restaurants", { near: "锦里", cuisine: "hotpot", max_price_per_person: 150, spice_level: 0, exclude_ingredients: ["花生"], party_size: 2 }, {
    results: [
      { name: "蜀味园火锅（锦里店）", rating: 4.6, price_per_person: 138, pots: ["鸳鸯锅", "红汤", "番茄锅"], allergen_notes: "自助蘸料台有花生碎、花生酱" },
      { name: "巷子深火锅", rating: 4.5, price_per_person: 126, pots: ["红汤", "番茄锅", "菌汤锅"], allergen_notes: "自助蘸料台有花生碎" },
    ],
    filtered_out: [{ name: "九宫格老火锅", reason: "只有红汤锅底" }],
  }),
]);
assistant(t`
  - 蜀味园火锅（锦里店）：人均¥138，有鸳鸯锅，评分4.6
  - 巷子深火锅：人均¥126，有番茄锅和菌汤锅，不吃辣的选择更多
  - ⚠️ 两家的自助蘸料台都有花生碎和花生酱：你的蘸料请服务员单独调（香油、蒜泥、葱花），别用公共的勺子。
  - 九宫格老火锅只有红汤，评分虽高但不适合你，已经排除了。
`);

user("就蜀味园吧。哈哈，其实我17号晚上一个人也想吃火锅😂");
assistant(t`
  - 蜀味园在春熙路也有店，离全季走路10分钟，有一人份的小鸳鸯锅。
  - 一个人点五六样就够：毛肚、嫩牛肉、鸭肠、土豆片、藕片。
  - 老规矩：蘸料只要香油蒜泥，不碰花生碎。
  - 公司餐补要是有上限，记得留好小票，超出的部分可能要自己付。
`);

user("好。最后把整个行程做成一个表吧，我截图发给Daniel。");
assistant(t`
  | 日期 | 时间 | 安排 | 备注 |
  |---|---|---|---|
  | 4/17 周四 | 07:30 | MU5401 虹桥 → 双流 | 10:35到 |
  | | 下午 | 成都办公室 | |
  | | 晚上 | 蜀味园（春熙路店） | 一人鸳鸯锅，不碰花生 |
  | | 住 | 全季酒店（春熙路店） | 2晚，公司报销 |
  | 4/18 周五 | 12:00 | 芙蓉小馆（太古里）客户午餐 | 4人包间 |
  | | 下午 | 季度会议 | |
  | | 23:05 | Daniel HO1045 到天府机场 | 打车约50分钟 |
  | 4/19 周六 | 11:00 | 换到院子里·宽窄巷子民宿 | 2晚，小雨带伞 |
  | | 下午 | 人民公园鹤鸣茶社 | |
  | | 晚上 | 太古里、IFS | |
  | 4/20 周日 | 07:00 | 大熊猫基地 | ¥55，需实名预约 |
  | | 下午 | 武侯祠 + 锦里 | |
  | | 晚上 | 蜀味园火锅（锦里店） | 鸳鸯锅 |
  | 4/21 周一 | 上午 | 杜甫草堂或文殊院 | |
  | | 16:05 | 3U8961 双流 → 虹桥 | 18:50到，自费 |
`);

user("Daniel看不太懂，帮我出一个英文版。");
assistant(t`
  Here's the English version for Daniel:

  | Date | Time | Plan | Notes |
  |---|---|---|---|
  | Thu 17 Apr | | Lin flies in and works | Hotel: Ji Hotel, Chunxi Road |
  | Fri 18 Apr | 19:50 | Daniel: HO1045 Pudong → Tianfu | Lands 23:05, take a taxi (~50 min, ¥120–150) |
  | Sat 19 Apr | 11:00 | Move to Yuanzi Guesthouse, Kuanzhai Alley | Light rain, bring an umbrella |
  | | afternoon | Teahouse in People's Park | |
  | | evening | Taikoo Li & IFS (climbing panda statue) | |
  | Sun 20 Apr | 07:00 | Giant Panda Base | ¥55, book with passport |
  | | afternoon | Wuhou Shrine + Jinli Street | |
  | | evening | Hotpot at Shuweiyuan (split pot) | |
  | Mon 21 Apr | morning | Du Fu Thatched Cottage | |
  | | 16:05 | 3U8961 Shuangliu → Hongqiao | Lands 18:50 |
`);

user("他问熊猫基地能不能抱熊猫🤣");
assistant(t`
  - 不能。现在成都大熊猫基地不提供抱熊猫、跟熊猫合影这类近距离接触的项目。
  - 最近的距离就是隔着玻璃看，月亮产房有时能看到熊猫宝宝。
  - 告诉他带个长焦镜头，早上熊猫吃竹子的时候最好拍。
`);

user("对了，想买点成都特产带回去给同事，有什么推荐？");
assistant(t`
  - 茶叶：竹叶青、蒙顶甘露，包装好看，送人体面
  - 熊猫文创：熊猫基地和太古里都有，冰箱贴、帆布包都不贵
  - 郫县豆瓣：送给爱做饭的同事，川菜的灵魂
  - 张飞牛肉、真空包装的兔头：给能吃辣的同事
  - ⚠️ 很多零食礼盒（酥糖、麻花、各种“怪味”小吃）含花生或者跟花生同线生产，买之前看配料表，你自己别拆开试吃。
`);

user("Daniel想学几句成都话，有什么简单好玩的？");
assistant(t`
  这几句最实用，成都人听到会很开心：
  - “巴适”：舒服、很好。吃到好吃的就说“巴适得板！”
  - “安逸”：舒服、惬意，跟“巴适”差不多
  - “要得”：好的、行
  - “雄起”：加油，看球的时候最常用
  - “摆龙门阵”：聊天，在茶馆里就是摆龙门阵
`);

user("人民公园的采耳安全吗？我有点怕。");
assistant(t`
  - 找正规的师傅，看工具是不是消毒过、一人一用。
  - 最近耳朵痛、发炎，或者有中耳炎病史，就别做了。
  - 过程中不舒服随时喊停，力度可以让师傅轻一点。
  - 一般¥30—60一次，先问好价格再开始。
`);

user("好，那我们去试试。");
assistant("去吧，巴适得很！😄");

// ------------------------------------------------ 3. TypeScript build (en)

const PROJECT = "/home/linwei/projects/expense-app";

user("Switching topics. My side project's TypeScript build broke after I upgraded some packages last night. Can you help?");
assistant(t`
  Sure. To start:
  - Where is the project, and may I run commands in it? Then I can run the type checker myself.
  - What did you upgrade? The TypeScript version and any tsconfig changes matter most.
`);

user("It's in ~/projects/expense-app, go ahead. I bumped TypeScript from 5.3 to 5.6 and switched the tsconfig to extend @tsconfig/node20, because a blog post said so.");
tools([
  call("run_command", { cmd: "npx tsc --noEmit -p . --pretty false", cwd: PROJECT, timeout_ms: 120000 }, {
    exit_code: 2,
    duration_ms: 4127,
    stdout: t`
      src/index.ts(3,27): error TS2835: Relative import paths need explicit file extensions in ECMAScript imports when '--moduleResolution' is 'node16' or 'nodenext'. Did you mean './utils/money.js'?
      src/import/csv.ts(1,18): error TS7016: Could not find a declaration file for module 'papaparse'. '${PROJECT}/node_modules/papaparse/papaparse.js' implicitly has an 'any' type.
        Try \`npm i --save-dev @types/papaparse\` if it exists or add a new declaration (.d.ts) file containing \`declare module 'papaparse';\`
      src/api/client.ts(42,19): error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.
        Type 'undefined' is not assignable to type 'string'.
      src/report/summary.ts(17,10): error TS2532: Object is possibly 'undefined'.
    `,
    stderr: "",
  }),
], "Let me run the type checker first.");
tools([
  call("read_file", { path: "tsconfig.json" }, {
    path: "tsconfig.json",
    content: t`
      {
        "extends": "@tsconfig/node20/tsconfig.json",
        "compilerOptions": {
          "outDir": "dist",
          "rootDir": "src",
          "declaration": true,
          "noUncheckedIndexedAccess": true,
          "sourceMap": true
        },
        "include": ["src"]
      }
    ` + "\n",
  }),
  call("read_file", { path: "package.json" }, {
    path: "package.json",
    content: t`
      {
        "name": "expense-app",
        "version": "0.3.0",
        "type": "module",
        "scripts": {
          "build": "tsc -p tsconfig.build.json",
          "start": "node dist/index.js",
          "test": "node --test dist/"
        },
        "dependencies": {
          "papaparse": "^5.4.1",
          "date-fns": "^3.6.0"
        },
        "devDependencies": {
          "@tsconfig/node20": "^20.1.4",
          "@types/node": "^20.14.10",
          "typescript": "^5.6.2"
        }
      }
    ` + "\n",
  }),
]);
assistant(t`
  Four errors, three different causes:
  - **TS2835 (index.ts):** the base config switches module resolution to Node16-style. Under Node's ESM rules a relative import needs the extension of the *output* file, so write \`./utils/money.js\` even though the source is \`money.ts\`.
  - **TS7016 (csv.ts):** papaparse ships no type declarations. \`npm i -D @types/papaparse\` fixes it.
  - **TS2345 and TS2532:** these come from \`noUncheckedIndexedAccess: true\`, which your tsconfig turns on. It makes \`process.env.X\` and \`array[0]\` possibly \`undefined\`, so code that assumed they exist no longer compiles.
  - None of this is a TypeScript 5.6 bug; it's the stricter config. Want to go through the last two one by one?
`);

user("Why did the imports work before? I didn't touch them.");
assistant(t`
  - Your old tsconfig presumably set \`"moduleResolution": "node"\` (the legacy node10 mode, common in older templates). It imitates CommonJS \`require\` and lets you leave out extensions.
  - Your package.json has \`"type": "module"\`, so Node runs the output as ESM, and ESM never guesses extensions.
  - So the old setting let tsc accept imports that Node itself refuses at runtime; they only worked if something like tsx or a bundler ran the code. The new config makes tsc check what Node will actually do, which is a good thing.
`);

user("Makes sense. Show me the client.ts one.");
tools([
  call("read_file", { path: "src/api/client.ts", start_line: 30, end_line: 48 }, {
    path: "src/api/client.ts",
    start_line: 30,
    content: t`
      const API_BASE = process.env.API_BASE_URL;
      const API_TOKEN = process.env.API_TOKEN ?? "";

      async function request(baseUrl: string, init: RequestInit & { path: string }): Promise<Response> {
        const res = await fetch(new URL(init.path, baseUrl), {
          ...init,
          headers: { Authorization: \`Bearer \${API_TOKEN}\`, ...init.headers },
        });
        if (!res.ok) throw new Error(\`\${init.method ?? "GET"} \${init.path} failed: \${res.status}\`);
        return res;
      }

      export async function fetchReport(id: string) {
        return request(API_BASE, { method: "GET", path: \`/reports/\${id}\` });
      }
    ` + "\n",
  }),
]);
assistant(t`
  \`API_BASE\` is \`string | undefined\` because the environment variable may be missing. I'd check it once at startup instead of silencing it with \`!\`:

  \`\`\`ts
  function requireEnv(name: string): string {
    const value = process.env[name];
    if (!value) throw new Error(\`Missing environment variable \${name}\`);
    return value;
  }

  const API_BASE = requireEnv("API_BASE_URL");
  \`\`\`

  - The app now fails at startup with a clear message, instead of an "Invalid URL" error on the first request.
  - \`API_TOKEN\` can keep its \`?? ""\` fallback if some endpoints work without a token.
`);

user("nice. and summary.ts line 17?");
tools([
  call("read_file", { path: "src/report/summary.ts", start_line: 12, end_line: 19 }, {
    path: "src/report/summary.ts",
    start_line: 12,
    content: t`
      export type Totals = Record<string, number>;

      /** The category with the highest total, e.g. "MEALS". */
      export function topCategory(totals: Totals): string {
        const entries = Object.entries(totals).sort((a, b) => b[1] - a[1]);
        return entries[0][0].toUpperCase();
      }
    ` + "\n",
  }),
]);
assistant(t`
  With \`noUncheckedIndexedAccess\`, \`entries[0]\` may be \`undefined\`, and it really is when \`totals\` is empty. Return \`undefined\` in that case and let the caller decide:

  \`\`\`ts
  export function topCategory(totals: Totals): string | undefined {
    const [first] = Object.entries(totals).sort((a, b) => b[1] - a[1]);
    return first?.[0].toUpperCase();
  }
  \`\`\`

  - The old version would have crashed with "Cannot read properties of undefined" for a new user with no expenses yet.
  - Callers that need a string can write \`topCategory(t) ?? "NONE"\`.
`);

user("Apply all of it and rerun the build.");
tools([
  call("run_command", { cmd: "npm i -D @types/papaparse", cwd: PROJECT }, {
    exit_code: 0,
    duration_ms: 2210,
    stdout: "\nadded 1 package, and audited 212 packages in 2s\n\n38 packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities\n",
    stderr: "",
  }),
], "My tools can run commands but not edit files, so I'll install the types package now and leave the code edits to you.");
assistant(t`
  Installed @types/papaparse. Please make these three edits, then tell me and I'll rerun tsc:
  1. src/index.ts line 3: \`"./utils/money"\` → \`"./utils/money.js"\`
  2. src/api/client.ts: add \`requireEnv\` and use it for \`API_BASE\`
  3. src/report/summary.ts: the new \`topCategory\`
`);

user("done, rerun");
tools([
  call("run_command", { cmd: "npx tsc --noEmit -p . --pretty false", cwd: PROJECT }, {
    exit_code: 2,
    duration_ms: 3984,
    stdout: "src/report/chart.ts(12,5): error TS2322: Type 'string | undefined' is not assignable to type 'string'.\n",
    stderr: "",
  }),
]);
assistant(t`
  One left, and it's a knock-on effect of the \`topCategory\` change:
  - chart.ts line 12 puts the result into a field typed \`string\`.
  - Decide what the chart should show with no data, e.g. \`title: topCategory(totals) ?? "No expenses yet"\`.
`);

user("fixed. again please");
tools([
  call("run_command", { cmd: "npx tsc --noEmit -p . && npm run build", cwd: PROJECT }, {
    exit_code: 0,
    duration_ms: 7311,
    stdout: "\n> expense-app@0.3.0 build\n> tsc -p tsconfig.build.json\n\n",
    stderr: "",
  }),
]);
assistant(t`
  Clean build 🎉 Two small suggestions so this doesn't bite again:
  - Add \`"typecheck": "tsc --noEmit -p ."\` to your scripts and run it in CI.
  - Pin TypeScript to a minor version (\`"~5.6.2"\`): minor releases can add stricter checks.
`);

user("ugh, spoke too soon. `npm start` says: Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/home/linwei/projects/expense-app/dist/plugins/csv' imported from /home/linwei/projects/expense-app/dist/loader.js");
tools([
  call("run_command", { cmd: "grep -n \"import(\" src/loader.ts", cwd: PROJECT }, {
    exit_code: 0,
    duration_ms: 12,
    stdout: "14:    const mod = await import(\"./plugins/\" + name);\n",
    stderr: "",
  }),
]);
assistant(t`
  Found it: a dynamic import built from a string, which tsc can't check, so it passed the build but still has no extension.

  \`\`\`ts
  const mod = await import(\`./plugins/\${name}.js\`);
  \`\`\`

  - Same rule as before: ESM in Node needs the full file name, including \`.js\`.
  - If \`name\` comes from user input or a config file, check it against a list of known plugins first, so nobody can load \`../../something\`.
`);

user("Worked! Last question: what's the difference between moduleResolution bundler and nodenext? Should I switch?");
assistant(t`
  - **nodenext:** follows Node's real rules (extensions required in ESM, \`exports\` maps respected). Right when Node runs your compiled files directly.
  - **bundler:** follows what Vite, webpack or esbuild accept: no extensions needed, \`exports\` maps still respected. Right when a bundler produces the final code.
  - You run \`node dist/index.js\` with no bundler, so keep **nodenext**. Switching would only hide the errors you just fixed until runtime.
`);

user("Oh, and `npm test` fails now. Can you look?");
tools([
  call("run_command", { cmd: "npm test", cwd: PROJECT }, {
    exit_code: 1,
    duration_ms: 1873,
    stdout: t`

      > expense-app@0.3.0 test
      > node --test dist/

      ✔ parseCsv reads the sample export (6.4ms)
      ✔ topCategory returns undefined for no data (0.3ms)
      ✖ splitBill gives the extra cent to the first people (1.1ms)
        AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:
        + actual - expected

          [
        +   33,
        +   33,
        +   34
        -   34,
        -   33,
        -   33
          ]
      ℹ tests 14
      ℹ suites 3
      ℹ pass 13
      ℹ fail 1
    ` + "\n",
    stderr: "",
  }),
]);
tools([
  call("read_file", { path: "src/utils/money.ts", start_line: 20, end_line: 26 }, {
    path: "src/utils/money.ts",
    start_line: 20,
    content: t`
      /** Split an amount in cents between people; nobody pays more than one cent extra. */
      export function splitBill(totalCents: number, people: number): number[] {
        const base = Math.floor(totalCents / people);
        const remainder = totalCents % people;
        return Array.from({ length: people }, (_, i) => (i >= people - remainder ? base + 1 : base));
      }
    ` + "\n",
  }),
]);
assistant(t`
  13 of 14 pass. The failing one is a real disagreement, not a build problem:
  - The test says the **first** people pay the extra cent: \`splitBill(100, 3)\` → \`[34, 33, 33]\`.
  - The code gives it to the **last** people: \`[33, 33, 34]\`.
  - If the test is right, change the condition to \`i < remainder\`:

  \`\`\`ts
  return Array.from({ length: people }, (_, i) => (i < remainder ? base + 1 : base));
  \`\`\`
`);

user("The test is right, the person who pays usually rounds up. Fixed. Run it again?");
tools([
  call("run_command", { cmd: "npm run build && npm test", cwd: PROJECT }, {
    exit_code: 0,
    duration_ms: 9120,
    stdout: "\n> expense-app@0.3.0 build\n> tsc -p tsconfig.build.json\n\n\n> expense-app@0.3.0 test\n> node --test dist/\n\nℹ tests 14\nℹ suites 3\nℹ pass 14\nℹ fail 0\nℹ cancelled 0\nℹ skipped 0\nℹ todo 0\nℹ duration_ms 412.77\n",
    stderr: "",
  }),
]);
assistant(t`
  - All 14 tests pass ✅
  - Note that \`npm test\` runs the compiled files in dist/, so it only sees your changes after a build. A \`"pretest": "npm run build"\` script makes that automatic.
`);

user("ok that's enough TypeScript for today 😅 thanks!");
assistant("You're welcome! Nice work getting it green. Good luck with the Chengdu trip next week.");

// ------------------------------------------------------ 4. in Chengdu (zh)

user("我到成都啦！在办公室楼下，想买杯咖啡和点心当午饭，有什么要注意的吗？");
assistant(t`
  欢迎来到成都！买点心的时候注意：
  - 曲奇、能量棒、酥饼、部分蛋糕可能含花生，或者跟含花生的产品同一条生产线。
  - 包装食品看“过敏原信息”一栏，写着“含有花生”或“可能含有花生”的都别买。
  - 现做的面包可以直接问店员“有没有放花生或者花生酱”。
  - 咖啡本身没问题，但有些季节限定的拿铁会加花生风味糖浆，点之前问一句。
`);

user("楼下有卖糖油果子的，能吃吗？");
assistant(t`
  - 糖油果子是糯米团油炸后裹糖，再撒白芝麻，传统做法里没有花生。
  - 风险在炸锅的油：有的摊子用菜籽油，有的用花生油；你过敏比较严重，要先问清楚。
  - 问不清楚的话就别冒险，换个有包装、有配料表的。
`);

user("算了我还是吃面包吧😂");
assistant("明智的选择😄 吃完好好开会，下午加油！");

user("我现在在蜀味园，一个人吃火锅。服务员问锅底要什么辣度，我该怎么说？");
assistant(t`
  成都的“微辣”也挺辣的，建议这样说：
  - “要一个小鸳鸯锅，红汤那边最微辣，另一边要清汤。”
  - “我对花生过敏，蘸料不要放花生，也不要花生碎。”
  - 你主要吃清汤那边，红汤里的菜尝一两口就好。
  - 小票留好，报销要用。
`);

user("好的，已经在吃了，毛肚太好吃了🤤");
assistant("哈哈，毛肚在锅里涮十几秒就捞起来，嫩！吃得开心，明天的季度会议也顺利。");

user("客户午餐很顺利！Mr. Harris超喜欢鸡豆花，问了好几次是怎么做的。");
assistant(t`
  太好了！可以这样跟他解释：
  - 鸡胸肉剁成细茸，加蛋清和高汤搅成糊。
  - 倒进滚烫的清汤里，慢慢凝成一朵朵像豆花的样子。
  - 英文可以说 “chicken 'tofu' — minced chicken made to look like tofu, served in clear broth”。
`);

user("Daniel落地了，已经打上车了。这么晚，我还是有点担心。");
assistant(t`
  - 让他在打车App里把行程分享给你，车牌号也截个图。
  - 从天府机场到春熙路大概50分钟，00:00左右能到酒店。
  - 你困了就先睡，让他到了给你发消息。
`);

user("到了到了！🥳 明天下雨，宽窄巷子附近午饭吃什么好？别太辣。");
tools([
  call("search_restaurants", { near: "宽窄巷子", cuisine: "sichuan", max_price_per_person: 100, spice_level: 1, exclude_ingredients: ["花生"], party_size: 2 }, {
    results: [
      { name: "宅院川菜", rating: 4.6, price_per_person: 88, signature: ["回锅肉", "樟茶鸭", "五香兔头"], allergen_notes: "宫保鸡丁含花生" },
      { name: "宽巷子老成都小吃", rating: 4.4, price_per_person: 55, signature: ["龙抄手", "赖汤圆", "甜水面"], allergen_notes: "汤圆有花生馅；甜水面酱汁里有花生碎，可做不放的" },
      { name: "小巷面馆", rating: 4.3, price_per_person: 35, signature: ["牛肉面", "豌杂面"], allergen_notes: "豌杂面浇头可能有花生碎" },
    ],
  }),
]);
assistant(t`
  - **宅院川菜**：人均¥88，评分4.6，有回锅肉、樟茶鸭，可以坐下来慢慢吃；别点宫保鸡丁（有花生）。
  - **宽巷子老成都小吃**：人均¥55，能一次尝好几样；但汤圆有花生馅，跟别的馅在同一锅里煮，建议你不点；甜水面也要让店家别放花生碎。
  - **小巷面馆**：人均¥35，很快，豌杂面的浇头可能有花生碎。
  - 下雨天我推荐宅院川菜，室内有座位，不用排队淋雨。
`);

user("就宅院川菜。Daniel想试试兔头😂");
assistant(t`
  - 兔头是成都的招牌小吃，Daniel敢吃的话一定让他试试！
  - 有五香（不辣）和麻辣两种：他吃麻辣的，你要吃就点五香的。
  - 吃法：先把兔头掰开，再慢慢啃脸颊肉，店员一般会示范。
`);

user("熊猫基地明天早上要排队吗？");
assistant(t`
  - 周末早上入园会排一会儿，7:30开门前到就好。
  - 进门先去月亮产房看熊猫宝宝，再去成年大熊猫别墅，人少的时候拍照最方便。
  - 10点以后熊猫大多吃饱了睡觉，所以上午的前两个小时最值。
`);

user("熊猫太可爱了！！Daniel拍了两百张照片😂");
assistant("哈哈，两百张还算克制的！看到熊猫宝宝了吗？🐼");

user("看到了！现在在锦里，有个小吃叫钟水饺，能吃吗？");
assistant(t`
  - 钟水饺的做法是猪肉馅水饺，浇复制酱油、红油和蒜泥，甜辣口。
  - 有的店在红油或者浇头里加花生碎，你过敏这么严重，最好先问清楚，问不清就别吃。
  - 更安全的选择：龙抄手（清汤）、三大炮（糯米团裹黄豆粉、浇红糖水），但三大炮也有店家用花生粉代替黄豆粉，问一句再吃。
`);

user("问了，三大炮是纯黄豆粉的，放心吃了😋");
assistant("好的！三大炮刚做好的时候最好吃，软糯香甜。");

user("晚上的蜀味园排了好长的队，要等一个小时……");
assistant(t`
  - 先取号，再去附近逛逛武侯祠的夜景或者锦里的小店，一个小时很快。
  - 不想等的话，巷子深火锅走路10分钟，也有番茄锅。
  - 别随便进一家没查过的火锅店：蘸料台的花生碎和花生酱到处都有，查过的两家至少知道情况。
`);

user("取好号了，去逛锦里了。");
assistant("好，叫号前10分钟回来就行。吃得开心！");

// --------------------------------------------------- 5. shopping list (zh)

user("我回上海啦！成都吃得太开心了，想下周六4月26号在家办个火锅局。");
assistant(t`
  好主意！先确认几件事：
  - 一共几个人？有没有不吃的东西？
  - 锅底想怎么安排？你不能吃辣，我建议至少有一格不辣的锅。
  - 大概预算多少？
`);

user("6个人：我、Daniel、小美、阿杰、思思、大伟。小美吃素。预算600左右。");
assistant(t`
  建议用三宫格锅，每个人都照顾到：
  - 红汤（微辣）：给Daniel、阿杰、大伟这些能吃辣的
  - 番茄锅：你和思思
  - 菌汤锅：小美
  - ⚠️ 很多番茄、菌汤锅底料里有牛油或骨汤，小美那一格要买标注“素食”的底料，或者用新鲜番茄和菌菇自己煮。
`);

user("三宫格好主意！帮我列个购物清单。");
assistant(t`
  6个人、预算¥600，清单如下：

  **锅底**
  - 红汤火锅底料（微辣）1袋、素食番茄锅底 1袋、菌菇 1盒（做菌汤）

  **荤菜**
  - 肥牛卷 2盒、羊肉卷 2盒、虾滑 2份、毛肚 1份、午餐肉 1罐

  **素菜**
  - 娃娃菜 2颗、金针菇 2把、香菇 1盒、冻豆腐 1盒、土豆 2个、藕 1节、宽粉 2包、生菜 1颗

  **蘸料**
  - 纯芝麻酱、香油、蒜、香菜、小葱、蚝油

  **其他**
  - 鹌鹑蛋 1盒、手工虾饺或素饺子 1袋（给小美）
`);

user("好，帮我加到购物清单App里，清单就叫“周六火锅局”。");
tools([
  call("add_to_list", {
    list: "周六火锅局",
    items: [
      { name: "红汤火锅底料", qty: "1袋", note: "微辣" },
      { name: "番茄锅底", qty: "1袋", note: "要素食的" },
      { name: "菌菇拼盘", qty: "1盒" },
      { name: "肥牛卷", qty: "2盒" },
      { name: "羊肉卷", qty: "2盒" },
      { name: "虾滑", qty: "2份" },
      { name: "毛肚", qty: "1份" },
      { name: "午餐肉", qty: "1罐" },
      { name: "娃娃菜", qty: "2颗" },
      { name: "金针菇", qty: "2把" },
      { name: "香菇", qty: "1盒" },
      { name: "冻豆腐", qty: "1盒" },
      { name: "土豆", qty: "2个" },
      { name: "藕", qty: "1节" },
      { name: "宽粉", qty: "2包" },
      { name: "生菜", qty: "1颗" },
      { name: "芝麻酱", qty: "1瓶", note: "纯芝麻，不要二八酱" },
      { name: "香油", qty: "1瓶" },
      { name: "蒜", qty: "1头" },
      { name: "香菜", qty: "1把" },
      { name: "小葱", qty: "1把" },
      { name: "蚝油", qty: "1瓶" },
      { name: "鹌鹑蛋", qty: "1盒" },
      { name: "素饺子", qty: "1袋", note: "给小美" },
    ],
  }, { list_id: "lst_8f3a21", added: 24, total_items: 24, url: "https://lists.example.com/l/lst_8f3a21" }),
]);
assistant(t`
  已加好：
  - 清单“周六火锅局”，共24项。
  - 芝麻酱那一项我备注了“纯芝麻，不要二八酱”，原因下面说。
  - 分享链接：https://lists.example.com/l/lst_8f3a21 ，可以发给帮忙采购的朋友。
`);

user("二八酱是什么？");
assistant(t`
  这个对你很重要：
  - “二八酱”是芝麻酱和花生酱混在一起的酱，常见的比例是两成芝麻、八成花生。
  - 超市里很多写着“火锅麻酱”“调和芝麻酱”的其实都是二八酱，味道差不多，不看配料表根本分不出来。
  - 只买配料表上只有“芝麻”的纯芝麻酱。
  - 沙茶酱、部分“火锅蘸料”小包装也常含花生，一样要看配料表。
`);

user("天哪，我一直以为麻酱就是芝麻做的😱 幸好问了你。帮我对比一下盒马和山姆的价格吧。");
tools([
  call("check_price", { store: "盒马", items: ["肥牛卷", "羊肉卷", "虾滑", "毛肚", "纯芝麻酱", "娃娃菜", "金针菇", "素食番茄锅底"] }, {
    store: "盒马",
    prices: [
      { item: "肥牛卷", spec: "300g", price: 39.9 },
      { item: "羊肉卷", spec: "300g", price: 42.9 },
      { item: "虾滑", spec: "150g", price: 19.9 },
      { item: "毛肚", spec: "200g", price: 29.9 },
      { item: "纯芝麻酱", spec: "250g", price: 16.8, ingredients: "芝麻" },
      { item: "娃娃菜", spec: "3颗装", price: 9.9 },
      { item: "金针菇", spec: "200g", price: 3.5 },
      { item: "素食番茄锅底", spec: "200g", price: 12.9 },
    ],
  }),
  call("check_price", { store: "山姆会员店", items: ["肥牛卷", "羊肉卷", "虾滑", "毛肚", "纯芝麻酱", "娃娃菜", "金针菇", "素食番茄锅底"] }, {
    store: "山姆会员店",
    prices: [
      { item: "肥牛卷", spec: "1kg", price: 89.9 },
      { item: "羊肉卷", spec: "1kg", price: 109.9 },
      { item: "虾滑", spec: "500g", price: 49.9 },
      { item: "毛肚", spec: "500g", price: 59.9 },
      { item: "纯芝麻酱", spec: "—", price: null, note: "无货；在售“火锅芝麻酱 1kg ¥32.9”，配料：芝麻、花生" },
      { item: "娃娃菜", spec: "1kg", price: 15.9 },
      { item: "金针菇", spec: "—", price: null, note: "无货" },
      { item: "素食番茄锅底", spec: "—", price: null, note: "无货" },
    ],
  }),
]);
assistant(t`
  | 商品 | 盒马 | 山姆 | 建议 |
  |---|---|---|---|
  | 肥牛卷 | ¥39.9/300g | ¥89.9/1kg | 山姆（6个人1kg刚好） |
  | 羊肉卷 | ¥42.9/300g | ¥109.9/1kg | 盒马买2盒就够 |
  | 虾滑 | ¥19.9/150g | ¥49.9/500g | 山姆 |
  | 毛肚 | ¥29.9/200g | ¥59.9/500g | 盒马（一份够尝鲜） |
  | 芝麻酱 | ¥16.8，配料只有芝麻 ✅ | ⚠️ 只有含花生的“火锅芝麻酱” | 一定在盒马买 |
  | 蔬菜、番茄锅底 | 都有 | 缺货 | 盒马 |

  - 山姆买肥牛和虾滑，其余都在盒马买，预计总共¥520左右，在预算内。
  - 山姆那款“火锅芝麻酱”配料里有花生，千万别顺手拿。
`);

user("饮料呢？Daniel说他带啤酒，我想准备点不含酒精的。");
assistant(t`
  - 酸梅汤：解辣，跟火锅最配
  - 豆奶或椰汁：也能解辣
  - 无糖气泡水：给不想喝甜的人
  - ⚠️ 别买花生牛奶、花生露：超市里经常跟核桃露、椰汁摆在一起，包装很像，容易拿错。
`);

user("加到清单里吧，酸梅汤2大瓶，豆奶1箱，气泡水1箱。");
tools([
  call("add_to_list", {
    list: "周六火锅局",
    items: [
      { name: "酸梅汤", qty: "2大瓶" },
      { name: "豆奶", qty: "1箱" },
      { name: "无糖气泡水", qty: "1箱" },
    ],
  }, { list_id: "lst_8f3a21", added: 3, total_items: 27 }),
]);
assistant("加好了，清单现在一共27项。");

user("大伟说要带一个朋友来，变7个人了，要多买点什么？");
assistant(t`
  多一个人，加这几样就够：
  - 肥牛卷：山姆那1kg够7个人，不用加
  - 羊肉卷：+1盒
  - 虾滑：+1份
  - 宽粉、土豆各加一点，主食类最容易不够
  - 问一下大伟的朋友有没有忌口或者过敏的东西
`);

user("好的，谢谢！我去买东西啦。");
assistant("去吧！记住：芝麻酱认准配料表只有“芝麻”的那款。祝火锅局开心🍲");

user("火锅局超成功！大家都说番茄锅好喝😆 就是剩了好多肥牛和蔬菜。");
assistant(t`
  太好了！剩下的这样处理：
  - 肥牛：分成小份冷冻，一个月内吃完；明天就可以做肥牛饭。
  - 娃娃菜、生菜：两三天内炒掉或者煮汤。
  - 金针菇、香菇：用保鲜袋装好放冷藏，三四天没问题。
  - 剩下的锅底汤别留过夜，倒掉就好。
`);

user("教我做个肥牛饭吧，简单点的。");
assistant(t`
  2人份，15分钟：
  1. 半个洋葱切丝，肥牛300g解冻。
  2. 调汁：生抽2勺、老抽半勺、糖1勺、料酒1勺、水100ml。
  3. 锅里少许油，洋葱炒软，倒入调好的汁煮开。
  4. 放肥牛，一变色就关火，煮久了会老。
  5. 连汤带肉浇在米饭上，可以再加一个溏心蛋。
  - 配料里没有花生，放心吃。
`);

user("照着做了，Daniel吃了两碗！");
assistant("哈哈，成功！这道菜以后就是你们家的快手菜了😄");

// -------------------------------------------------------- 6. HSK plan (en)

user("Hi! This one's in English because I'll forward it to Daniel. He wants to take HSK 4 on Sunday, June 15. He passed HSK 3 last year. Can you make him a study plan?");
assistant(t`
  Happy to! A few questions first so the plan fits him:
  - How many hours a week can he study?
  - Which part is hardest for him: listening, reading or writing?
  - Roughly how many words does he know now?
`);

user("About 5–6 hours a week. Listening is his weakest, and he's slow at reading characters. He knows maybe 600 words, so basically HSK 3.");
assistant(t`
  Here's a 7-week plan (Apr 28 – Jun 14). HSK 4 expects about 1,200 words, so he needs ~600 new ones: about 100 a week, or 15 a day, with the last week for review only.

  | Week | Dates | Focus | New words | Mock test |
  |---|---|---|---|---|
  | 1 | Apr 28 – May 4 | Diagnostic mock, set up flashcards, listening part 1 | 100 | Sat May 3 (baseline) |
  | 2 | May 5 – 11 | Listening part 2, common measure words | 100 | Sat May 10 |
  | 3 | May 12 – 18 | Reading: sentence ordering | 100 | Sat May 17 |
  | 4 | May 19 – 25 | Listening part 3 (long dialogues) | 100 | Sat May 24 |
  | 5 | May 26 – Jun 1 | Writing: building sentences from given words | 100 | Sat May 31 |
  | 6 | Jun 2 – 8 | Reading speed, timed practice | 100 | Sat Jun 7 |
  | 7 | Jun 9 – 14 | Review mistakes only, sleep well | 0 | none |

  Weekly routine (≈5.5 h):
  - Mon/Wed/Fri 07:30, 30 min: listening, with shadowing of the audio
  - Tue/Thu 20:00, 45 min: reading + new words in Pleco or Anki
  - Sat 09:00, 105 min: full mock exam under exam timing
  - Sun, 45 min: speaking practice with you, using that week's words
`);

user("Perfect. Can you put it in his calendar? He shared his Google Calendar with me, it's called \"Daniel\". And add the Sunday practice to our shared calendar \"Lin & Daniel\".");
tools([
  call("create_calendar_events", {
    calendar: "Daniel",
    events: [
      { title: "HSK4 listening (30 min)", start: "2025-04-28T07:30:00+08:00", end: "2025-04-28T08:00:00+08:00", recurrence: "RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;UNTIL=20250613T235959Z", notes: "Shadow the audio; replay anything you missed with the transcript." },
      { title: "HSK4 reading + new words (45 min)", start: "2025-04-29T20:00:00+08:00", end: "2025-04-29T20:45:00+08:00", recurrence: "RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20250612T235959Z", notes: "15 new words a day; review yesterday's first." },
      { title: "HSK4 mock exam (105 min)", start: "2025-05-03T09:00:00+08:00", end: "2025-05-03T10:45:00+08:00", recurrence: "RRULE:FREQ=WEEKLY;BYDAY=SA;UNTIL=20250607T235959Z" },
    ],
  }, {
    calendar: "Daniel",
    created: [
      { event_id: "evt_d1_listen", occurrences: 21 },
      { event_id: "evt_d1_read", occurrences: 14 },
      { event_id: "evt_d1_mock", occurrences: 6 },
    ],
    conflicts: [
      { event_id: "evt_d1_mock", occurrence_date: "2025-05-31", with: "端午 杭州 Hangzhou trip (May 31 – Jun 1)" },
    ],
  }),
  call("create_calendar_events", {
    calendar: "Lin & Daniel",
    events: [
      { title: "中文口语练习 Speaking practice", start: "2025-05-04T10:00:00+08:00", end: "2025-05-04T10:45:00+08:00", recurrence: "RRULE:FREQ=WEEKLY;BYDAY=SU;UNTIL=20250608T235959Z" },
    ],
  }, {
    calendar: "Lin & Daniel",
    created: [{ event_id: "evt_ld_speak", occurrences: 6 }],
    conflicts: [
      { event_id: "evt_ld_speak", occurrence_date: "2025-06-01", with: "端午 杭州 Hangzhou trip (May 31 – Jun 1)" },
    ],
  }),
]);
assistant(t`
  Done:
  - Daniel's calendar: listening (21 sessions), reading (14) and mock exams (6).
  - "Lin & Daniel": Sunday speaking practice (6 sessions).
  - Two clashes with your Dragon Boat Festival trip to Hangzhou (May 31 – Jun 1): the mock exam on Sat May 31 and the speaking practice on Sun Jun 1.
  - Monday Jun 2 is still a public holiday, so the mock exam could move to that morning. Want me to do that?
`);

user("Yes, move the mock to Monday June 2 at 9. The speaking practice can stay, we'll just speak Chinese in Hangzhou 😄");
tools([
  call("update_calendar_event", {
    calendar: "Daniel",
    event_id: "evt_d1_mock",
    occurrence_date: "2025-05-31",
    new_start: "2025-06-02T09:00:00+08:00",
    new_end: "2025-06-02T10:45:00+08:00",
  }, { ok: true, event_id: "evt_d1_mock", moved: { from: "2025-05-31T09:00:00+08:00", to: "2025-06-02T09:00:00+08:00" } }),
]);
assistant(t`
  - Moved: the mock exam is now Monday Jun 2, 09:00–10:45.
  - Speaking practice on Jun 1 stays. Ordering food in Hangzhou counts 😄
`);

user("顺便问一下，“了”的用法怎么跟他解释比较简单？他老是搞混。");
assistant(t`
  可以先只讲两种最常见的“了”：
  - **动词后的“了”：动作完成了。** 我买了三本书。/ 他喝了一杯咖啡。
  - **句尾的“了”：情况变了，或者出现了新情况。** 下雨了。/ 我饿了。/ 他是大学生了。
  - **这些时候不用“了”：** 习惯性的动作（我每天都跑步），还有“是……的”句子（我是坐飞机来的）。
  - 小技巧：让他问自己“这是一个完成的动作，还是一个新的变化？”
`);

user("他又问“我吃饭了”和“我吃了饭”有什么区别😂");
assistant(t`
  好问题，说明他在认真想：
  - “我吃饭了”：最常用，意思是“我已经吃过饭了”，也可以回答“你吃饭了吗？”
  - “我吃了饭”：单独说听起来没说完，一般后面要接下一件事：“我吃了饭就去找你。”
  - 要说清楚吃了多少，就用动词后的“了”：“我吃了两碗饭。”
  - 一句话总结：单独回答的时候，说“我吃饭了”就对了。
`);

user("Back to English: he wants a few good apps or resources for listening practice.");
assistant(t`
  - **Pleco:** the dictionary almost every learner uses; its flashcards can drill HSK 4 word lists.
  - **Anki:** free spaced-repetition flashcards; shared HSK 4 decks with audio are easy to find.
  - **Official HSK mock papers:** the best match for the real exam's speed and accents; do them on the Saturdays.
  - **Graded podcasts and YouTube channels** for intermediate learners: pick one he enjoys and shadow 5 minutes a day.
  - Tip: listen to each mock audio twice, first without the transcript, then with it, pausing on every sentence he missed.
`);

user("Great, I'll send him all this. Thanks!");
assistant("You're welcome! Tell Daniel 加油 from me. Seven weeks is enough if he sticks to the routine.");

// -------------------------------------------------- 7. expense report (en)

user("I need to file the expense report for the Chengdu trip. Our finance system is in English and the approver is Sarah Müller, so let's do this in English. Policy: meals max ¥150 per day unless it's client entertainment, hotel max ¥450 a night, economy flights only.");
assistant(t`
  Sure. Here's how we'll do it:
  - Upload the receipts and I'll read them one batch at a time.
  - I'll check every item against the policy and flag anything over the limits.
  - At the end you get a table you can copy into the finance system, plus a short note for Sarah.
`);

user("First two: receipts/rcpt_0001.pdf (flight) and receipts/rcpt_0002.pdf (hotel).");
tools([
  call("parse_receipt", { file: "receipts/rcpt_0001.pdf" }, {
    merchant: "China Eastern Airlines 中国东方航空",
    document: "e-ticket itinerary receipt",
    issue_date: "2025-04-10",
    travel_date: "2025-04-17",
    passenger: "LIN/WEI",
    items: [
      { description: "MU5401 SHA-CTU economy (Y)", amount: 1190.0 },
      { description: "Civil aviation development fund", amount: 50.0 },
    ],
    total: 1240.0,
    currency: "CNY",
    payment: "Corporate card **** 8812",
  }),
  call("parse_receipt", { file: "receipts/rcpt_0002.pdf" }, {
    merchant: "Booking.com — 全季酒店（成都春熙路店）",
    document: "booking confirmation and payment receipt",
    issue_date: "2025-04-17",
    check_in: "2025-04-17",
    check_out: "2025-04-19",
    nights: 2,
    total: 115.8,
    currency: "USD",
    payment: "Personal card **** 4417",
  }),
]);
tools([
  call("convert_currency", { amount: 115.8, from: "USD", to: "CNY", date: "2025-04-17" }, {
    amount: 115.8, from: "USD", to: "CNY", date: "2025-04-17", rate: 7.2195, result: 836.02, source: "reference rate",
  }),
], "The hotel was charged in USD, so I'll convert it at the rate of the charge date.");
assistant(t`
  - **Flight:** MU5401 on Apr 17, economy, ¥1,240 incl. ¥50 fees. Paid with the corporate card, so nothing to reimburse to you, but it still goes on the report. ✅
  - **Hotel:** USD 115.80 for 2 nights = ¥836.02 at 7.2195, i.e. ¥418.01 per night, under the ¥450 limit. ✅
  - The hotel went on your personal card, so it's reimbursable. Attach your card statement too: your bank's rate and any foreign-transaction fee may differ from the reference rate, and finance usually reimburses what you actually paid.
`);

user("Next batch: rcpt_0003.jpg is the client lunch, rcpt_0004.jpg is my hotpot on the 17th, and rcpt_0005.png and rcpt_0006.png are two Didi rides.");
tools([
  call("parse_receipt", { file: "receipts/rcpt_0003.jpg" }, {
    merchant: "芙蓉小馆（太古里店）",
    datetime: "2025-04-18T13:52:00+08:00",
    covers: 4,
    items: [
      { description: "开水白菜", amount: 88 },
      { description: "鸡豆花", amount: 68 },
      { description: "糖醋排骨", amount: 58 },
      { description: "清蒸江团", amount: 128 },
      { description: "蒜泥白肉", amount: 42 },
      { description: "干煸四季豆", amount: 32 },
      { description: "鸡汤抄手 ×4", amount: 32 },
      { description: "米饭 ×4", amount: 8 },
      { description: "茶位 ×4", amount: 12 },
    ],
    total: 468,
    currency: "CNY",
    payment: "WeChat Pay",
    invoice: "electronic fapiao requested",
  }),
  call("parse_receipt", { file: "receipts/rcpt_0004.jpg" }, {
    merchant: "蜀味园火锅（春熙路店）",
    datetime: "2025-04-17T20:31:00+08:00",
    covers: 1,
    items: [
      { description: "一人份鸳鸯锅底", amount: 38 },
      { description: "鲜毛肚", amount: 38 },
      { description: "嫩牛肉", amount: 32 },
      { description: "鸭肠", amount: 26 },
      { description: "土豆片", amount: 8 },
      { description: "藕片", amount: 8 },
      { description: "酸梅汤", amount: 6 },
    ],
    total: 156,
    currency: "CNY",
    payment: "Alipay",
  }),
]);
tools([
  call("parse_receipt", { file: "receipts/rcpt_0005.png" }, {
    merchant: "滴滴出行 DiDi",
    datetime: "2025-04-17T10:52:00+08:00",
    route: { from: "成都双流国际机场T2", to: "成都办公室（天府大道北段）" },
    distance_km: 18.4,
    total: 46.5,
    currency: "CNY",
    payment: "Alipay",
  }),
  call("parse_receipt", { file: "receipts/rcpt_0006.png" }, {
    merchant: "滴滴出行 DiDi",
    datetime: "2025-04-18T18:45:00+08:00",
    route: { from: "成都办公室（天府大道北段）", to: "全季酒店（成都春熙路店）" },
    distance_km: 7.9,
    total: 21.3,
    currency: "CNY",
    payment: "Alipay",
  }),
]);
assistant(t`
  All four read. Policy check:

  | Date | Category | Description | Paid (¥) | Claim (¥) | Check |
  |---|---|---|---|---|---|
  | Apr 17 | Flight | MU5401 SHA→CTU, economy | 1,240.00 | 1,240.00 | ✅ corporate card |
  | Apr 17–19 | Hotel | Ji Hotel Chunxi Road, 2 nights (USD 115.80) | 836.02 | 836.02 | ✅ ¥418.01/night |
  | Apr 17 | Taxi | Didi, airport → Chengdu office | 46.50 | 46.50 | ✅ |
  | Apr 17 | Meal | Dinner, hotpot, 1 person | 156.00 | 150.00 | ⚠️ ¥6 over the daily cap |
  | Apr 18 | Client meal | Lunch, 4 people (¥117/person) | 468.00 | 468.00 | ✅ needs attendees + purpose |
  | Apr 18 | Taxi | Didi, office → hotel | 21.30 | 21.30 | ✅ |

  - Claim total: **¥2,761.82**, of which ¥1,240.00 was on the corporate card, so **¥1,521.82** comes back to you.
  - For the hotpot, claim ¥150 and add a note that you're covering the ¥6 yourself; that's cleaner than asking for an exception.
  - The client lunch is exempt from the cap, but finance will want the attendees' names, their company and the business purpose.
`);

user("Attendees: me, Zhang Tao (our sales lead), and Mr. Harris and Wang Fang from Brightline Logistics. Purpose: Q2 contract renewal.");
assistant(t`
  Here's a description you can paste into the line item:
  - "Client lunch: Q2 contract renewal discussion with Brightline Logistics. Attendees: M. Harris, F. Wang (Brightline); Lin Wei, Zhang Tao (our company). 4 people, ¥117 per person."
  - Attach the fapiao as well as the photo of the bill: the itemised bill alone is usually not enough.
`);

user("Did I forget anything?");
assistant(t`
  Possibly two things:
  - **Lunch on the 17th** (the bread near the office): skip it, since the hotpot already takes the 17th over the ¥150 cap.
  - **The flight home.** You flew back on the 21st for personal reasons, but many policies still cover the return flight up to what it would have cost on the last business day. Ask finance whether yours does.
  - Not claimable: the guesthouse on the 19th–20th, Daniel's flight and taxi, and anything else from the weekend.
`);

user("Finance says yes, up to the fare on the 19th. The travel platform shows ¥980 for the 19th; I paid ¥1,020 on the 21st.");
assistant(t`
  Then claim the lower amount:
  - Add "Return flight CTU→SHA (3U8961 on Apr 21, personal extension), claimed at the Apr 19 fare": **¥980.00**.
  - Attach the 3U8961 receipt and a screenshot of the platform's ¥980 fare for the 19th.
  - New claim total: **¥3,741.82**; back to you: **¥2,501.82**.
`);

user("Can you write a short note to Sarah to go with the report?");
assistant(t`
  Here's a draft:

  > Hi Sarah,
  >
  > Please find attached my expense report for the Chengdu trip (Apr 17–19): client lunch with Brightline Logistics and the Q2 planning meeting at our Chengdu office. The total claim is ¥3,741.82, of which ¥1,240.00 was already paid with the corporate card.
  >
  > Two notes: my dinner on Apr 17 was ¥156, so I've claimed the ¥150 cap and covered the difference myself. I stayed in Chengdu until Apr 21 for personal reasons, so the return flight is claimed at the Apr 19 fare (¥980, screenshot attached), as confirmed with finance.
  >
  > Thanks,
  > Lin

  I kept the email itself as prose: full sentences read better for an approver, even though I use bullet points with you.
`);

user("Good call. Sent! 🙌");
assistant("Nice, that's the trip fully wrapped up 🎉");

user("Sarah replied: she needs a proper fapiao for the hotel, the Booking.com receipt isn't enough. How do I get one?");
assistant(t`
  - Ask the hotel, not Booking.com: a fapiao can only be issued by the business that received the money for the stay.
  - Ji Hotel is part of Huazhu, so you can usually request an electronic fapiao in the Huazhu (华住会) app under the stay, or call the front desk with your booking number.
  - You'll need the company's name as it appears on invoices and its tax ID (统一社会信用代码); finance has both.
  - If the hotel says Booking.com collected the payment, ask them to issue it for the amount they received and tell Sarah about the difference.
`);

user("Found it in the Huazhu app, the e-fapiao is already on its way to Sarah.");
assistant("Great, that was quick. The report should be complete now ✅");

// --------------------------------------------- 7b. weekly report (zh), May

user("帮我写一下这周的周报，我说要点你来整理：1. 会员积分功能的PRD评审通过了；2. 和设计对齐了新版首页；3. 成都出差见了Brightline的客户，Q2续约基本谈妥；4. 下周开始做数据看板的需求调研。还有个风险：后端人手不够，积分功能可能延期一周。");
assistant(t`
  **本周工作**
  - 会员积分功能：PRD评审通过，进入开发阶段
  - 新版首页：和设计团队对齐了改版方案
  - 客户拜访：成都出差拜访Brightline，Q2续约基本谈妥

  **下周计划**
  - 启动数据看板的需求调研

  **风险**
  - 后端人手不足，会员积分功能可能延期一周上线
`);

user("风险那一条写得委婉一点，我老板不喜欢看到“延期”两个字😅");
assistant(t`
  可以改成：
  - 会员积分功能后端排期较紧，正在和技术负责人评估资源，如需调整上线时间会提前同步。
  - 要更主动一点的话，可以再加一句：“建议从数据组借调一位后端同学支持两周。”
`);

user("第二种好，用那个。再帮我想一个周报的标题，简短点。");
assistant(t`
  - 产品周报｜积分PRD通过，Q2续约落地在即
  - 林薇周报（5月第1周）：积分、首页、客户续约
  - 本周进展：积分功能进入开发，Brightline续约基本确定
`);

// ---------------------------------------------- 7c. HSK check-in (en), May

user("Update on Daniel: second mock exam yesterday, 171 out of 300. Listening 49, reading 66, writing 56. He needs 180 to pass, right?");
assistant(t`
  - Yes: HSK 4 is passed with 180 out of 300 in total.
  - He's 9 points short, and listening is clearly where they are: 49 vs 66 in reading.
  - Going from 171 to 180 in five weeks is very realistic. I'd add two short listening sessions a week and keep everything else as it is.
`);

user("OK, add listening on Tuesday and Thursday mornings too, 7:30 like the others, until the exam. And move next Sunday's speaking practice to 4pm, he has a football match in the morning.");
tools([
  call("create_calendar_events", {
    calendar: "Daniel",
    events: [
      { title: "HSK4 listening, extra (30 min)", start: "2025-05-13T07:30:00+08:00", end: "2025-05-13T08:00:00+08:00", recurrence: "RRULE:FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20250612T235959Z", notes: "Listening part 3: long dialogues. Transcript only after the second listen." },
    ],
  }, { calendar: "Daniel", created: [{ event_id: "evt_d1_listen2", occurrences: 10 }], conflicts: [] }),
  call("update_calendar_event", {
    calendar: "Lin & Daniel",
    event_id: "evt_ld_speak",
    occurrence_date: "2025-05-18",
    new_start: "2025-05-18T16:00:00+08:00",
    new_end: "2025-05-18T16:45:00+08:00",
  }, { ok: true, event_id: "evt_ld_speak", moved: { from: "2025-05-18T10:00:00+08:00", to: "2025-05-18T16:00:00+08:00" } }),
]);
assistant(t`
  - Added: extra listening on Tue/Thu at 07:30, 10 sessions from May 13 to Jun 12.
  - Moved: next Sunday's (May 18) speaking practice is now 16:00–16:45. The other Sundays stay at 10:00.
  - With the Tue/Thu evening reading, those two days now have 75 minutes in total. Tell me if that's too much for him.
`);

user("He also asked whether writing characters by hand matters. He registered for the test on a computer.");
assistant(t`
  - On the computer-based test he types pinyin and picks the character, so handwriting doesn't count.
  - What matters is **recognising** the right character among look-alikes (在/再, 已/己), because the input method will offer both.
  - For the writing section, practise typing whole sentences quickly: he has about 25 minutes for 15 questions.
`);

// -------------------------------------- 7d. Dragon Boat Festival trip (zh)

user("端午节我们去杭州，5月31号到6月1号，两个人。帮我看看天气和西湖附近的酒店，预算每晚800。");
tools([
  call("get_weather", { city: "杭州", start_date: "2025-05-31", days: 2 }, {
    city: "杭州",
    daily: [
      { date: "2025-05-31", condition: "多云", min: 21, max: 29, rain_prob: 0.2 },
      { date: "2025-06-01", condition: "雷阵雨", min: 22, max: 27, rain_prob: 0.7 },
    ],
    unit: "℃",
  }, { ascii: true }),
  call("search_hotels", { city: "杭州", near: "西湖", check_in: "2025-05-31", check_out: "2025-06-01", max_price: 800, style: "boutique" }, {
    hotels: [
      { name: "湖畔小筑精品酒店", price: 760, rating: 4.8, breakfast: true, walk_to_lake_min: 3, note: "端午期间仅剩2间" },
      { name: "龙井茶园民宿", price: 620, rating: 4.7, breakfast: true, walk_to_lake_min: 25, features: ["茶园景观", "安静"] },
      { name: "北山街花园酒店", price: 798, rating: 4.6, breakfast: false, walk_to_lake_min: 1 },
    ],
  }),
]);
assistant(t`
  **天气**
  - 5月31日（周六）：多云，21—29℃，适合环湖
  - 6月1日（周日）：雷阵雨，22—27℃，带伞，下午尽量安排室内

  **酒店**
  - 湖畔小筑精品酒店：¥760，评分4.8，含早，走路3分钟到西湖，端午只剩2间，要订就快
  - 龙井茶园民宿：¥620，评分4.7，含早，在茶园里很安静，离湖比较远
  - 北山街花园酒店：¥798，评分4.6，离湖最近，但不含早餐
`);

user("端午节要吃粽子吧？杭州的粽子会有花生吗？");
assistant(t`
  - 杭州附近最有名的是嘉兴粽子，主流是鲜肉粽、蛋黄肉粽，一般不放花生。
  - ⚠️ 但花生粽在南方很常见，有些甜粽、杂粮粽、八宝粽会放花生。
  - 买包装粽子看配料表；现煮的要问清楚，而且不同口味的粽子经常在一个锅里煮。
  - 最稳妥：只吃包装上写明配料的鲜肉粽。
`);

user("好，那我只吃肉粽😂 西湖边有什么不辣的杭帮菜推荐？");
tools([
  call("search_restaurants", { near: "杭州西湖", cuisine: "any", max_price_per_person: 200, spice_level: 0, exclude_ingredients: ["花生"], party_size: 2 }, {
    results: [
      { name: "湖畔居杭帮菜", rating: 4.7, price_per_person: 168, signature: ["西湖醋鱼", "龙井虾仁", "东坡肉"], allergen_notes: null },
      { name: "知味小馆", rating: 4.5, price_per_person: 92, signature: ["片儿川", "小笼包", "葱包桧"], allergen_notes: "部分凉菜淋花生酱" },
    ],
  }),
]);
assistant(t`
  - **湖畔居杭帮菜**：人均¥168，评分4.7，龙井虾仁、东坡肉、西湖醋鱼都不辣，适合晚饭
  - **知味小馆**：人均¥92，片儿川、小笼包、葱包桧，适合早午饭；部分凉菜淋花生酱，凉菜就别点了
  - 杭帮菜整体偏甜不辣，你在杭州可以放心吃，只要照旧避开花生。
`);

user("好，谢谢！");
assistant("不客气！端午节快乐，祝你们在杭州玩得开心🚣");

// ----------------------------------- 8. callbacks and a changed preference

user("Totally different question: what snacks can I pack for a 3-hour flight next month?");
assistant(t`
  Peanut-free ideas that travel well:
  - Rice crackers or seaweed snacks (check the label: some are made on lines that also handle peanuts)
  - Dried mango, apple chips, or a banana
  - Cheese sticks or a boiled egg, if you eat them within a few hours
  - Plain crackers with a small tub of hummus
  - Skip trail mix and most "mixed nuts": they almost always contain peanuts. Also tell the crew about your allergy when you board.
`);

user("对了，从现在开始，不管我用中文还是英文，你都用英文回答吧，我想多练练英文。");
assistant(t`
  Sure! From now on:
  - I'll answer in English, even when you write in Chinese. This replaces the earlier rule of answering Chinese topics in Chinese.
  - Still in bullet points.
  - I'll keep Chinese names (restaurants, dishes, places) in Chinese with an English gloss, so you can still find them.
`);

user("成都那家请客户吃饭的餐厅叫什么来着？Mr. Harris想知道。");
assistant(t`
  - It was **芙蓉小馆 (Furong Xiaoguan)**, the Taikoo Li branch in Chengdu, about ¥128 per person.
  - The dish he loved was **鸡豆花**: "chicken tofu", minced chicken set like soft tofu in clear broth.
  - If he goes back, the 开水白菜 (cabbage in clear broth) is their other signature dish.
`);

user("我对什么过敏来着？我朋友要给我订生日蛋糕😂");
assistant(t`
  - You're **severely allergic to peanuts**: even a small amount makes your throat tighten.
  - For the cake, tell your friend: no peanuts, no peanut butter, and no praline or "nut crunch" toppings, which are often made with peanuts.
  - Ask the bakery whether the cake is made on equipment shared with peanut products; if they can't say, choose another bakery.
  - Chocolate decorations can carry "may contain peanuts" warnings too.
`);

user("蛋糕什么口味比较好？不要太甜的。");
assistant(t`
  Not-too-sweet options that are usually peanut-free (still ask the bakery):
  - **Matcha** with light cream: slightly bitter, very popular in Shanghai bakeries
  - **Earl Grey or jasmine tea** chiffon
  - **Yoghurt and fresh berries**: tart and light
  - **Black sesame**: nutty taste without nuts, but confirm it isn't mixed with peanut paste, just like the 二八酱 at the hotpot party
`);

user("提醒我一下，火锅局买的那款芝麻酱是在哪儿买的？我想再买一瓶。");
assistant(t`
  - You bought it at **盒马 (Hema)**: ¥16.8 for 250 g, and the only ingredient was sesame.
  - Don't buy the "火锅芝麻酱" at Sam's Club: its ingredients include peanuts.
`);

user("明天上海天气怎么样？要带伞吗？");
tools([
  call("get_weather", { city: "上海", start_date: "2025-06-03", days: 1 }, {
    city: "上海",
    daily: [{ date: "2025-06-03", condition: "小雨转阴", min: 20, max: 26, rain_prob: 0.65 }],
    unit: "℃",
  }),
]);
assistant(t`
  - Tomorrow in Shanghai: light rain turning cloudy, 20–26 °C.
  - 65% chance of rain, so yes, take an umbrella.
`);

user("Daniel的考试是哪天来着？我想提前订个餐厅给他庆祝。");
assistant(t`
  - His HSK 4 exam is on **Sunday, June 15**.
  - His last mock exam is on Sat Jun 7, and Jun 9–14 is review only.
  - A celebration dinner on the evening of the 15th works well. Want me to find a restaurant?
`);

user("好，帮我找一家静安寺附近的，6月15号晚上，两个人，人均300以内。");
tools([
  call("search_restaurants", {
    near: "上海静安寺",
    cuisine: "any",
    max_price_per_person: 300,
    spice_level: 1,
    exclude_ingredients: ["花生", "peanut"],
    party_size: 2,
  }, {
    results: [
      { name: "Maison Lumière", cuisine: "western", rating: 4.7, price_per_person: 280, address: "愚园路 68号", allergen_notes: "Kitchen can prepare every dish without nuts; desserts contain almonds" },
      { name: "弄堂里本帮菜（静安寺店）", cuisine: "shanghainese", rating: 4.6, price_per_person: 160, address: "常德路 155号", allergen_notes: "烤麸、四喜烤麸含花生，可去掉" },
      { name: "Sakura Yakitori 樱", cuisine: "japanese", rating: 4.5, price_per_person: 240, address: "南京西路 1601号 3F", allergen_notes: null },
    ],
  }),
]);
assistant(t`
  Three options near Jing'an Temple, all checked for peanuts:
  - **Maison Lumière** (愚园路 68号): French-style, about ¥280 per person, rating 4.7. The kitchen can make every dish nut-free; the desserts contain almonds, which are tree nuts, not peanuts, but mention your allergy anyway.
  - **弄堂里本帮菜** (常德路 155号): Shanghainese, about ¥160 per person, rating 4.6. Their 四喜烤麸 comes with peanuts, so order it without or skip it.
  - **Sakura Yakitori 樱** (南京西路 1601号 3F): Japanese skewers, about ¥240 per person, rating 4.5, no allergen notes on file, so ask when you book.
  - For a celebration I'd pick Maison Lumière; if Daniel would rather eat Shanghai food after six weeks of Chinese study, 弄堂里 is the fun choice.
`);

user("订第一家吧！");
assistant(t`
  - I can't make bookings myself, so please reserve through their page on Dianping or by phone.
  - Ask for a table for 2 on **Sunday, June 15**, around 18:30, and say "severe peanut allergy" when you book so the kitchen notes it.
`);

user("Can you give me a quick summary of everything you know about me and what we've set up over the last few weeks? Just to check.");
assistant(t`
  Here's what I have:
  - **You:** Lin Wei (林薇), product manager in Shanghai. Partner: Daniel, British, learning Chinese.
  - **Health:** severe peanut allergy. I check every food suggestion for peanuts, peanut oil, peanut sauce and 二八酱.
  - **Food:** mild spice at most (微辣); split hotpot by default.
  - **Style:** bullet points. **Language:** English for everything, since you asked me to switch (this replaced "Chinese topics in Chinese").
  - **Chengdu trip (Apr 17–21):** done; expense report sent to Sarah, claim ¥3,741.82, ¥2,501.82 back to you.
  - **expense-app:** builds cleanly with nodenext; remember the \`.js\` extensions in imports.
  - **Hotpot party (Apr 26):** list "周六火锅局", 27 items; only pure sesame paste.
  - **Daniel's HSK 4:** Sun Jun 15, pass mark 180/300 (he had 171 in May). Routine in his calendar, extra Tue/Thu listening, mock exam moved to Jun 2, Sunday speaking practice with you.
  - **Dragon Boat Festival:** Hangzhou, May 31 – Jun 1; only meat zongzi for you.
  - **Work:** weekly report with the member-points PRD, the new home page and the Brightline renewal.
  - **Jun 15 dinner:** Maison Lumière, for you to book.
`);

user("Perfect, that's all correct. Thanks Xiaoyu, talk soon!");
assistant("You're welcome, Lin! Good luck to Daniel, and enjoy the celebration dinner 🎉");

// ============================================================ validation ==

function validate(msgs, toolDefs) {
  const errors = [];
  const fail = (i, msg) => errors.push(`messages[${i}]: ${msg}`);
  const defs = new Map(toolDefs.map((d) => [d.function.name, d.function.parameters]));
  const ids = new Set();
  let pending = []; // call ids of the last assistant tool-call message not yet answered

  msgs.forEach((m, i) => {
    if (m.role !== "tool" && pending.length) fail(i, `calls ${pending.join(", ")} were never answered`);
    if (m.role !== "tool") pending = [];
    const nonEmpty = typeof m.content === "string" && m.content.trim() !== "";
    switch (m.role) {
      case "system":
        if (i !== 0) fail(i, "system message must come first and only once");
        if (!nonEmpty) fail(i, "empty system message");
        break;
      case "user":
        if (!nonEmpty) fail(i, "empty user message");
        break;
      case "assistant":
        if (!m.tool_calls) {
          if (!nonEmpty) fail(i, "assistant message without content or tool_calls");
          break;
        }
        if (m.content !== null && !nonEmpty) fail(i, "content must be null or text");
        if (!Array.isArray(m.tool_calls) || m.tool_calls.length === 0) fail(i, "tool_calls must be a non-empty array");
        for (const c of m.tool_calls) {
          if (!/^call_[A-Za-z0-9]{24}$/.test(c.id)) fail(i, `bad call id ${c.id}`);
          if (ids.has(c.id)) fail(i, `duplicate call id ${c.id}`);
          ids.add(c.id);
          if (c.type !== "function") fail(i, `call ${c.id}: type must be "function"`);
          const params = defs.get(c.function?.name);
          if (!params) {
            fail(i, `call ${c.id}: unknown tool ${c.function?.name}`);
            continue;
          }
          let args;
          try {
            args = JSON.parse(c.function.arguments);
          } catch (e) {
            fail(i, `call ${c.id}: arguments are not JSON (${e.message})`);
            continue;
          }
          for (const key of params.required) if (!(key in args)) fail(i, `call ${c.id}: missing argument ${key}`);
          for (const key of Object.keys(args)) if (!(key in params.properties)) fail(i, `call ${c.id}: unknown argument ${key}`);
          pending.push(c.id);
        }
        break;
      case "tool":
        if (pending[0] !== m.tool_call_id) {
          fail(i, `tool_call_id ${m.tool_call_id} does not answer the next open call of the preceding assistant message`);
        }
        pending.shift();
        try {
          JSON.parse(m.content);
        } catch (e) {
          fail(i, `tool content is not JSON (${e.message})`);
        }
        break;
      default:
        fail(i, `unknown role ${m.role}`);
    }
  });
  if (pending.length) fail(msgs.length - 1, `calls ${pending.join(", ")} were never answered`);
  if (msgs[0]?.role !== "system") errors.push("the first message must be the system message");
  return errors;
}

// ================================================================ output ==

const errors = validate(messages, TOOLS);
if (errors.length) {
  console.error(errors.join("\n"));
  process.exit(1);
}

const outputs = {
  "script.json": JSON.stringify(messages, null, 2) + "\n",
  "tools.json": JSON.stringify(TOOLS, null, 2) + "\n",
};
// Round trip: what we write must parse back to exactly what we validated.
if (JSON.stringify(JSON.parse(outputs["script.json"])) !== JSON.stringify(messages)) {
  throw new Error("script.json does not round-trip");
}

if (process.argv.includes("--check")) {
  let stale = false;
  for (const [name, text] of Object.entries(outputs)) {
    let onDisk = null;
    try {
      onDisk = readFileSync(OUT_DIR + name, "utf8");
    } catch {}
    if (onDisk !== text) {
      console.error(`${name} is out of date: run node scripts/gen-conversation.mjs`);
      stale = true;
    }
  }
  process.exit(stale ? 1 : 0);
}

mkdirSync(OUT_DIR, { recursive: true });
for (const [name, text] of Object.entries(outputs)) writeFileSync(OUT_DIR + name, text);

const count = (pred) => messages.filter(pred).length;
const callMsgs = messages.filter((m) => m.tool_calls);
const hasCjk = (m) => /[\u3400-\u9fff]/.test(m.content ?? "");
console.log(`wrote ${OUT_DIR}script.json (${Buffer.byteLength(outputs["script.json"])} bytes) and tools.json (${TOOLS.length} tools)`);
console.log(
  `${messages.length} messages: system ${count((m) => m.role === "system")}, user ${count((m) => m.role === "user")}, ` +
    `assistant ${count((m) => m.role === "assistant")} (${callMsgs.length} with tool_calls, ` +
    `${callMsgs.filter((m) => m.tool_calls.length > 1).length} with parallel calls), tool ${count((m) => m.role === "tool")}`,
);
console.log(`user/assistant text messages containing Chinese characters: ${count((m) => m.role !== "tool" && hasCjk(m))}`);
