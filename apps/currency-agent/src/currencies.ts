// Every currency the rate source (Frankfurter, European Central Bank reference rates) publishes,
// with the names and symbols people use for them.

export interface Currency {
  code: string;
  name: string;
  /** Lower-case names, plurals and symbols that mean this currency in a sentence. */
  aliases: string[];
}

export const CURRENCIES: readonly Currency[] = [
  { code: 'AUD', name: 'Australian dollar', aliases: ['australian dollar', 'australian dollars', 'aussie dollar', 'a$'] },
  { code: 'BGN', name: 'Bulgarian lev', aliases: ['bulgarian lev', 'lev', 'leva'] },
  { code: 'BRL', name: 'Brazilian real', aliases: ['brazilian real', 'brazilian reais', 'reais', 'r$'] },
  { code: 'CAD', name: 'Canadian dollar', aliases: ['canadian dollar', 'canadian dollars', 'c$'] },
  { code: 'CHF', name: 'Swiss franc', aliases: ['swiss franc', 'swiss francs', 'franc', 'francs'] },
  { code: 'CNY', name: 'Chinese yuan', aliases: ['chinese yuan', 'yuan', 'renminbi', 'rmb'] },
  { code: 'CZK', name: 'Czech koruna', aliases: ['czech koruna', 'koruna', 'czech crowns'] },
  { code: 'DKK', name: 'Danish krone', aliases: ['danish krone', 'danish kroner'] },
  { code: 'EUR', name: 'euro', aliases: ['euro', 'euros', '€'] },
  {
    code: 'GBP',
    name: 'British pound',
    aliases: ['british pound', 'british pounds', 'pound sterling', 'pounds sterling', 'sterling', 'pound', 'pounds', 'quid', '£'],
  },
  { code: 'HKD', name: 'Hong Kong dollar', aliases: ['hong kong dollar', 'hong kong dollars', 'hk$'] },
  { code: 'HUF', name: 'Hungarian forint', aliases: ['hungarian forint', 'forint', 'forints'] },
  { code: 'IDR', name: 'Indonesian rupiah', aliases: ['indonesian rupiah', 'rupiah'] },
  { code: 'ILS', name: 'Israeli new shekel', aliases: ['israeli shekel', 'shekel', 'shekels', '₪'] },
  { code: 'INR', name: 'Indian rupee', aliases: ['indian rupee', 'indian rupees', 'rupee', 'rupees', '₹'] },
  { code: 'ISK', name: 'Icelandic króna', aliases: ['icelandic krona', 'icelandic króna'] },
  { code: 'JPY', name: 'Japanese yen', aliases: ['japanese yen', 'yen', '¥'] },
  { code: 'KRW', name: 'South Korean won', aliases: ['south korean won', 'korean won', '₩'] },
  { code: 'MXN', name: 'Mexican peso', aliases: ['mexican peso', 'mexican pesos', 'peso', 'pesos'] },
  { code: 'MYR', name: 'Malaysian ringgit', aliases: ['malaysian ringgit', 'ringgit'] },
  { code: 'NOK', name: 'Norwegian krone', aliases: ['norwegian krone', 'norwegian kroner'] },
  { code: 'NZD', name: 'New Zealand dollar', aliases: ['new zealand dollar', 'new zealand dollars', 'kiwi dollar', 'nz$'] },
  { code: 'PHP', name: 'Philippine peso', aliases: ['philippine peso', 'philippine pesos', '₱'] },
  { code: 'PLN', name: 'Polish złoty', aliases: ['polish zloty', 'zloty', 'złoty', 'zlotys'] },
  { code: 'RON', name: 'Romanian leu', aliases: ['romanian leu', 'leu', 'lei'] },
  { code: 'SEK', name: 'Swedish krona', aliases: ['swedish krona', 'swedish kronor', 'krona', 'kronor'] },
  { code: 'SGD', name: 'Singapore dollar', aliases: ['singapore dollar', 'singapore dollars', 's$'] },
  { code: 'THB', name: 'Thai baht', aliases: ['thai baht', 'baht', '฿'] },
  { code: 'TRY', name: 'Turkish lira', aliases: ['turkish lira', 'lira', '₺'] },
  {
    code: 'USD',
    name: 'US dollar',
    aliases: ['us dollar', 'us dollars', 'u.s. dollars', 'american dollar', 'american dollars', 'dollar', 'dollars', 'bucks', '$'],
  },
  { code: 'ZAR', name: 'South African rand', aliases: ['south african rand', 'rand'] },
];

export const CURRENCY_CODES: ReadonlySet<string> = new Set(CURRENCIES.map((c) => c.code));

export function currencyName(code: string): string {
  return CURRENCIES.find((c) => c.code === code)?.name ?? code;
}
