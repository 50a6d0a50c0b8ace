// Turkish words of the console's pages, typed against the English part (en/console.ts): a
// missing word, or one taking other values, fails `npm run check`.
import type { consoleWords as English } from '../en/console.js';

export const consoleWords = {
  clients: {
    branch: 'Şube numarası (boş: tüm şubeler)',
    limits: 'Dakika/saat/gün başına sınırlar (boş: varsayılanlar)',
    limitsHint: 'Eğik çizgiyle ayrılmış üç pozitif tam sayı.',
  },
  dataClasses: {
    covers: {
      basic: 'kimlik numaraları, adlar, üye numarası, şube, durum, tarihler (her zaman)',
      contact: 'telefon, e-posta',
      identity: 'tc_no, doğum tarihi, cinsiyet',
      address: 'adres',
      access: 'QR kod (kapıları açar)',
      finance: 'bakiye',
      staff: 'personel adları ve iletişim bilgileri, şube yöneticisi',
    },
    review: 'tüm sınıflar: gözden geçirilmeli',
  },
  clientEdit: {
    changes: {
      scopes: 'kapsamlar',
      'data classes': 'veri sınıfları',
      limits: 'sınırlar',
      branch: 'şube',
    },
  },
  webhooks: {
    counts: ['Teslim edilen', 'Başarısız', 'Bekleyen'],
    enabled: 'etkin',
    disabled: (reason) => `devre dışı (${reason ?? 'gerekçe yok'})`,
    noTries: 'Deneme yok.',
    triesCaption: (shown, total) => `${total} denemenin en yeni ${shown} tanesi`,
    triesHeads: [
      'Deneme zamanı (UTC)',
      'Olay türü',
      'Webhook kimliği',
      'Sonuç',
      'Durum kodu',
      'ms',
      'Yanıt (ilk karakterler)',
    ],
  },
  usage: {
    title: 'Kullanım',
    figures: {
      requests: 'İstekler',
      client_errors: '4xx',
      server_errors: '5xx',
      rate_limited: '429',
    },
    periods: 'Dönemler',
    hours: 'son günün saatleri',
    days: 'son 30 günün günleri',
    seriesCaption: 'Dönem başına istekler (UTC)',
    periodStart: 'Dönem başlangıcı',
    chart: 'Dönem başına isteklerin grafiği; sayıları aşağıdaki tabloda',
    groups: { client: 'istemci', operation: 'işlem', status: 'durum kodu' },
    clientFilter: 'İstemci anahtarı (boş: tüm istemciler)',
    totalsBy: 'Toplamların ölçütü',
    noSuchClient: (key) => `${key} anahtarlı bir istemci yok`,
    totals: 'Toplamlar',
    periodBy: (by) => `Tüm dönem, ${by} bazında`,
    bytesOut: 'Giden bayt',
    noClient: '(yok)',
    utc: 'UTC',
    rangeBy: (by) => `Tüm aralık, ${by} bazında`,
    by: (by) => `${by.charAt(0).toLocaleUpperCase('tr')}${by.slice(1)} bazında`,
    download: 'İndir',
    downloadText: 'Bu aralık için GET /api/v1/usage ile aynı satırlar, CSV olarak:',
    perPeriod: 'dönem başına',
    perPeriodAnd: (by) => `dönem ve ${by} başına`,
    downloadRefused: 'Kullanım indirmesi reddedildi',
  },
} satisfies typeof English;
