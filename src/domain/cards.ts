// Card number rules: Luhn, brand detection, masking, test cards, expiry and log redaction.
// Pure (no Node APIs) so Temporal workflow code can import it.

export type CardBrand =
  | 'VISA'
  | 'MASTERCARD'
  | 'AMEX'
  | 'DISCOVER'
  | 'JCB'
  | 'DINERS'
  | 'UNIONPAY'
  | 'UNKNOWN';

const DIGITS = /^\d+$/;

export function luhnValid(number: string): boolean {
  if (!DIGITS.test(number)) return false;
  let sum = 0;
  let double = false;
  // Walk from the check digit leftwards, doubling every second digit.
  for (let i = number.length - 1; i >= 0; i--) {
    let d = number.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

// Numeric value of the first `len` digits, or -1 when the number is shorter.
function prefix(number: string, len: number): number {
  return number.length >= len ? Number(number.slice(0, len)) : -1;
}

function inRange(value: number, lo: number, hi: number): boolean {
  return value >= lo && value <= hi;
}

export function detectBrand(number: string): CardBrand {
  if (!DIGITS.test(number)) return 'UNKNOWN';
  const p1 = prefix(number, 1);
  const p2 = prefix(number, 2);
  const p3 = prefix(number, 3);
  const p4 = prefix(number, 4);
  const p6 = prefix(number, 6);

  if (p1 === 4) return 'VISA';
  if (inRange(p2, 51, 55) || inRange(p4, 2221, 2720)) return 'MASTERCARD';
  if (p2 === 34 || p2 === 37) return 'AMEX';
  // 622126-622925 is co-branded Discover/UnionPay; checked before the wider 62 UnionPay range.
  if (p4 === 6011 || inRange(p3, 644, 649) || p2 === 65 || inRange(p6, 622126, 622925)) {
    return 'DISCOVER';
  }
  if (inRange(p4, 3528, 3589)) return 'JCB';
  if (inRange(p3, 300, 305) || p2 === 36 || p2 === 38 || p2 === 39) return 'DINERS';
  if (p2 === 62 || p2 === 81) return 'UNIONPAY';
  return 'UNKNOWN';
}

export function last4(number: string): string {
  return number.slice(-4);
}

export function maskedCard(number: string): { brand: CardBrand; last4: string } {
  return { brand: detectBrand(number), last4: last4(number) };
}

// Every card of the test-card table (docs/quickstart.md, "Test cards").
export const TEST_CARD_NUMBERS: ReadonlySet<string> = new Set([
  '4242424242424242',
  '5555555555554444',
  '378282246310005',
  '6011111111111117',
  '4000000000000002',
  '4000000000009995',
  '4000000000000101',
  '4000000000000069',
  '4000000000009987',
  '4000000000009979',
  '4100000000000019',
  '4000000000000127',
  '4000000000000119',
  '4000000000003220',
  '4000000000003063',
  '4000008400001629',
  '4000000000005126',
  '4000009000000003',
  '4000004290000003',
  '4000005020000007',
  '4000005030000005',
  '4000007000000007',
  '4000007100000006',
  '5555554290000003',
]);

export function isTestCard(number: string): boolean {
  return TEST_CARD_NUMBERS.has(number);
}

export function isPayoutEligibleBrand(brand: CardBrand): boolean {
  return brand === 'VISA' || brand === 'MASTERCARD';
}

// A card is valid through the last instant of its expiry month (UTC). Out-of-range input
// counts as expired so a caller that skipped validation fails safe.
export function cardExpired(expMonth: number, expYear: number, now: Date): boolean {
  if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12) return true;
  if (!Number.isInteger(expYear) || expYear < 0) return true;
  // Date.UTC takes a zero-based month, so `expMonth` is the month after expiry. Two-digit years
  // would be remapped to 19xx by Date.UTC, so set the year explicitly.
  const firstOfNext = new Date(Date.UTC(2000, expMonth, 1));
  firstOfNext.setUTCFullYear(expYear + (expMonth === 12 ? 1 : 0));
  return now.getTime() >= firstOfNext.getTime();
}

// Runs of digit groups separated by a single space or hyphen.
const DIGIT_RUN = /\d+(?:[ -]\d+)*/g;

function cardLike(digits: string): boolean {
  const n = digits.length;
  return (n >= 13 && n <= 19) || (n === 12 && luhnValid(digits));
}

function mask(digits: string): string {
  const keep = Math.min(4, digits.length);
  return '*'.repeat(digits.length - keep) + digits.slice(digits.length - keep);
}

// True when some contiguous sequence of groups looks like a card number. Needed because a card
// number may sit next to other numbers in one run ("4242 4242 4242 4242 2030").
function runHasCard(groups: string[]): boolean {
  for (let i = 0; i < groups.length; i++) {
    let digits = '';
    for (let j = i; j < groups.length; j++) {
      digits += groups[j];
      if (digits.length > 19) break;
      if (cardLike(digits)) return true;
    }
  }
  return false;
}

// Masks anything that may be a card number, keeping at most the last 4 digits of the run.
// A run with a card-like part is masked whole so no middle digits of a card leak.
export function redactCardNumbers(text: string): string {
  return text.replace(DIGIT_RUN, (run) => {
    const groups = run.split(/[ -]/);
    return runHasCard(groups) ? mask(groups.join('')) : run;
  });
}
