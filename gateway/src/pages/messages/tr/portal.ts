// Turkish words of the portal's pages, typed against the English part (en/portal.ts): a
// missing word, or one taking other values, fails `npm run check`.
import type { portalWords as English } from '../en/portal.js';

export const portalWords = {
  nav: {
    overview: 'Genel bakış',
    credentials: 'Kimlik bilgileri',
    personalData: 'Kişisel veriler',
    apiDocs: 'API belgeleri',
    quickStart: 'Hızlı başlangıç',
  },
  overview: {
    title: 'Genel bakış',
    limits: 'Sınırlar',
    lastDay: 'Son 24 saat',
    webhooks: "Webhook'lar",
    limitsCaption: 'Pencere başına izin verilen istekler ve şu an kalan',
    limitHeads: ['Pencere', 'Sınır', 'Şu an kalan'],
    windows: { minute: 'dakika', hour: 'saat', day: 'gün' },
    outcomes: {
      requests: 'İstekler',
      client_errors: '4xx yanıtlar',
      server_errors: '5xx yanıtlar',
      rate_limited: '429 yanıtlar',
    },
    noSubscription: 'Webhook aboneliği yok.',
    addEndpoint: 'Uç nokta ekleyin',
    healthCaption: 'Her aboneliğin durumlarına göre olayları',
    lastSuccess: 'Son başarı (UTC)',
    lastFailure: 'Son hata (UTC)',
  },
  portalWebhooks: {
    title: "Webhook'lar",
    noScope: (scope) =>
      `İstemcinizde ${scope} kapsamı yok: webhook’ları yönetmek için API operatörünüzden isteyin.`,
    none: 'Henüz abonelik yok.',
    caption: 'Webhook abonelikleriniz',
    subscriptionOf: (id) => `${id} numaralı abonelik`,
    typesLegend: (fallback) => `Olay türleri (hiçbiri işaretli değilse: ${fallback})`,
    everyType: 'kapsamlarınızın izin verdiği tüm türler',
    add: 'Uç nokta ekle',
    descriptionOptional: 'Açıklama (isteğe bağlı)',
    addButton: 'Uç nokta ekle',
    added: (id) => `${id} numaralı abonelik eklendi: teslimatları bu anahtarla imzalanır.`,
  },
  webhook: {
    title: (id) => `${id} numaralı abonelik`,
    sendTest: 'Test olayı gönder',
    rotate: 'İmzalama anahtarını yenile',
    replaySince: 'Şu zamandan beri kaydedilen olayları yeniden gönder (UTC)',
    failedOnly: 'Yalnızca başarısız olanlar',
    replay: 'Yeniden gönder',
    descriptionEmpty: 'Açıklama (boş: yok)',
    everyOutcome: 'tüm sonuçlar',
    credentialsEnded:
      'Bu aboneliği oluşturan ya da URL’sini en son değiştiren kimlik bilgileri sona erdi (istemci gizli anahtarı yenilendi, belirteçler iptal edildi): etkinleştirmeden önce URL’nin size ait olduğunu doğrulayın.',
    saved: (id) => `${id} numaralı abonelik kaydedildi.`,
    enabled: (id) =>
      `${id} numaralı abonelik etkinleştirildi: bekleyen olayları şimdi gönderiliyor.`,
    rotated:
      'Yeni imzalama anahtarı oluşturuldu: 24 saat boyunca teslimatlar her iki anahtarla da imzalanır.',
    replayed: (n, since) => `${since} tarihinden beri ${n} olay yeniden gönderiliyor.`,
  },
  credentials: {
    title: 'Kimlik bilgileri',
    overlaps: { none: 'Yok: eski anahtar hemen sona erer', '1h': '1 saat', '24h': '24 saat' },
    rotateHeading: 'İstemci gizli anahtarını yenile',
    rotateHint:
      'Yeni bir gizli anahtar oluşturulur ve bir kez gösterilir. Geçiş süresi olmadan eski anahtar hemen çalışmaz olur; istemcinizin tüm erişim ve yenileme belirteçleri de. Geçiş süresiyle iki anahtar da süre bitene kadar belirteç alır; ardından eski anahtar ve belirteçleri sona erer.',
    overlapLegend: 'Eski anahtarın geçiş süresi',
    rotate: 'İstemci gizli anahtarını yenile',
    previous: 'Önceki gizli anahtar',
    previousUntil: (until) =>
      `Önceki gizli anahtarınız ${until} tarihine kadar belirteç almaya devam ediyor. Şimdi sonlandırırsanız o ve aldığı belirteçler sona erer.`,
    endPrevious: 'Önceki anahtarı şimdi sonlandır',
    endedNote: (ids) =>
      `${ids} numaralı webhook abonelikleri, onları oluşturan kimlik bilgileri sona erdiği için devre dışı bırakıldı: Webhook'lar sayfasında URL’lerini kontrol edip size ait olanları etkinleştirin.`,
    rotatedUntil: (until) =>
      `Yeni istemci gizli anahtarı oluşturuldu; eskisi ve belirteçleri ${until} tarihine kadar çalışır.`,
    rotatedNow:
      'Yeni istemci gizli anahtarı oluşturuldu; eskisi ve istemcinizin tüm belirteçleri sona erdi.',
    previousEnded: 'Önceki istemci gizli anahtarı ve aldığı belirteçler sona erdi.',
  },
  personalData: {
    title: 'Üyelerin kişisel verileri',
    intro:
      'İstemciniz, sahip olduğu sınıfların alanlarını her yanıtta, değişiklikte ve webhook’ta alır; diğerlerinin alanları çıkarılır. Sınıfları kulüp verir: entegrasyonunuzun ihtiyaç duyduğu bir sınıf için kulübe başvurun.',
    caption: 'Veri sınıfları ve her birindeki alanlar',
    heads: ['Sınıf', 'Kapsam', 'İstemciniz', 'Alanlar'],
    held: 'Var',
    withheld: 'Yok',
  },
  quickStart: {
    title: 'Hızlı başlangıç',
    intro:
      'İstemciniz sandbox’ı okur: canlı bir kulüple aynı API, değişiklik akışı ve webhook’ların arkasında üretilmiş bir kulüp; hiçbir gerçek üye yok. Adımları sırayla izleyin.',
    token: '1. Belirteç',
    tokenText: [
      'Size verilen istemci gizli anahtarı',
      'değişkenindeyken (Kimlik bilgileri sayfası yenisini oluşturur) ve',
      'kuruluyken:',
    ],
    tokenLabel: 'Belirteç isteği',
    read: '2. İlk okuma',
    readLabel: 'İlk okuma',
    webhook: '3. Webhook',
    endpoint: 'Uç noktanızın URL’si',
    subscribe: 'Kapsamlarınızın izin verdiği tüm türlere abone ol',
    change: '4. Değişiklik',
    type: 'Tür',
    makeChange: 'Değişiklik yap',
    shell: 'Aynısı kabuktan:',
    shellLabel: 'Kabuktan değişiklik',
    delivery: '5. Teslimatı',
    deliveryText:
      'Bir değişiklikten birkaç saniye sonra teslimatı burada denenir (sayfayı yenileyin).',
    verify: 'Teslimatı doğrula',
    verifyLabel: 'Doğrulama',
    noDelivery: 'Henüz teslimat yok.',
    triesCaption: 'Aboneliklerinizin son denemeleri (UTC)',
    triesHeads: ['Abonelik', 'Olay', 'Sonuç', 'Durum kodu', 'Zaman'],
    added: (id) =>
      `${id} numaralı abonelik eklendi: teslimatları bu anahtarla imzalanır; aşağıdaki örnek artık onu içeriyor.`,
    notReadable: (type) => `"${type}" kapsamlarınızın okuduğu bir tür değil.`,
    made: (type, id, made) => `${type} ${id} ${made}: olayı ardından gelecek.`,
    madeKinds: { created: 'oluşturuldu', changed: 'değiştirildi' },
    nothingToCopy: (type) => `Sandbox kulübünde kopyalanacak ${type} kaydı yok.`,
  },
} satisfies typeof English;
