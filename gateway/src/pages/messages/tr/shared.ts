// Turkish words of the frame, navigation, sign-in, error pages, notices and refusals of both areas, typed against the English part (en/shared.ts): a
// missing word, or one taking other values, fails `npm run check`.
import type { sharedWords as English } from '../en/shared.js';

export const sharedWords = {
  frame: {
    skip: 'İçeriğe geç',
    nav: 'Ana menü',
    signOut: 'Çıkış yap',
    language: 'Dil',
  },
  nav: {
    webhooks: "Webhook'lar",
    usage: 'Kullanım',
  },
  areas: {
    console: { label: 'Konsol', ended: 'Oturumunuz sona erdi: yeniden giriş yapın.' },
    portal: {
      label: 'İş ortağı portalı',
      ended: 'Oturumunuz sona erdi: yeni bir portal bağlantısı açın.',
    },
  },
  signIn: {
    title: 'Giriş yap',
    console: {
      howTo: [
        'Ağ geçidinin sunucusunda şu komutla oluşturulan bir bağlantıyla giriş yapın:',
        '. Her bağlantı yalnızca bir kez ve kısa bir süre için geçerlidir.',
      ],
      oidc: 'Kurum hesabınızla giriş yapın',
      invalidTitle: 'Bu giriş bağlantısı geçersiz',
      invalid:
        'Bağlantı daha önce kullanılmış, süresi dolmuş ya da hiç oluşturulmamış. Yeni bir bağlantı isteyin:',
      confirmTitle: 'Konsola giriş',
      button: 'Giriş yap',
      confirm: [
        'Bu bağlantı şu kişi adına giriş yapar:',
        '. Yalnızca bir kez çalışır: kullanmak için düğmeye basın.',
      ],
    },
    portal: {
      howTo:
        'API operatörünüzün sizin için oluşturduğu bağlantıyla giriş yapın. Her bağlantı yalnızca bir kez ve kısa bir süre için geçerlidir; yenisi için operatörünüze başvurun.',
      invalidTitle: 'Bu portal bağlantısı geçersiz',
      invalid:
        'Bağlantı daha önce kullanılmış, süresi dolmuş ya da hiç oluşturulmamış. API operatörünüzden yeni bir bağlantı isteyin.',
      confirmTitle: 'İş ortağı portalını aç',
      button: 'Portalı aç',
      confirm: [
        'Bu bağlantı şu istemcinin portalını açar:',
        '. Yalnızca bir kez çalışır: kullanmak için düğmeye basın.',
      ],
    },
    oidc: {
      refusedTitle: 'Giriş reddedildi',
      refused: (reason) => `Reddedildi: ${reason}.`,
      again: 'Yeniden giriş yap',
      signedInTitle: 'Giriş yapıldı',
      signedInAs: 'Giriş yapan:',
      open: 'Konsolu aç',
      tooMany: 'bu adresten çok fazla giriş denemesi yapıldı; bir dakika bekleyin',
      unreachable: 'kimlik sağlayıcıya ulaşılamadı; daha sonra yeniden deneyin',
      unbound: 'bu giriş burada başlatılmadı ya da çok uzun sürdü',
      unconfirmed: 'kimlik sağlayıcı bu girişi onaylamadı',
      noEmail: 'kimlik sağlayıcı bir e-posta adresi vermedi',
      unverified: (email) => `kimlik sağlayıcı ${email} adresini doğrulamamış`,
      notAllowed: (email) => `${email} bu konsola giriş yapamaz`,
    },
  },
  errors: {
    httpsTitle: 'HTTPS gerekli',
    https:
      "Bu sayfaya şifresiz HTTP üzerinden ulaşıldı. Canlı ortamda giriş çerezi Secure'dur ve tarayıcı onu yalnızca HTTPS üzerinden saklar: sayfayı https:// adresinden açın.",
    proxy: [
      "TLS'i sonlandıran bir vekil sunucu ya da yük dengeleyicinin arkasındaysanız ağ geçidinde",
      'ayarını yapın; böylece ağ geçidi isteğin HTTPS ile geldiğine dair vekilin beyanına (X-Forwarded-Proto) güvenir.',
    ],
    notFoundTitle: 'Sayfa bulunamadı',
    notFound: 'Burada böyle bir sayfa yok.',
    backToStart: 'Başa dön',
    refusedTitle: 'İstek reddedildi',
    crossSite: 'Reddedildi: istek bu siteden gelmedi. Sayfayı yenileyip yeniden deneyin.',
    expired:
      'Reddedildi: formun süresi dolmuş ya da form bu siteden gelmemiş. Sayfayı yenileyip yeniden deneyin.',
    unreadableTitle: 'İstek anlaşılamadı',
    unreadable: 'İstek okunamadı. Geri dönüp yeniden deneyin.',
    failedTitle: 'Bir sorun oluştu',
    failed: 'Sayfa gösterilemedi. Biraz sonra yeniden deneyin; sorun sürerse operatöre bildirin.',
    tooManyTitle: 'Çok fazla istek',
    tooMany: (n) =>
      `Dakikada en fazla ${n} değişiklik ve indirme yapılabilir: bir dakika bekleyip yeniden deneyin.`,
  },
  outcome: {
    invalidForm: 'Form geçersiz.',
    test: (outcome, status, ms) => `Test olayı: ${outcome}, durum kodu ${status}, ${ms} ms.`,
    noStatus: 'yok',
    answer: 'Uç noktanın yanıtı:',
    shownOnce: 'Yalnızca bu kez gösteriliyor: şimdi saklayın.',
  },
  refusals: {
    'no-client': (r) => `${r.clientKey} anahtarlı bir istemci yok`,
    'no-subscription': (r) => `${r.id} numaralı bir webhook aboneliği yok`,
    'no-member': (r) => `${r.id} numaralı bir üye yok`,
    'member-id': (r) => `üye numarası pozitif bir tam sayı olmalı, girilen: "${r.value}"`,
    'unknown-scopes': (r) =>
      `bilinmeyen kapsam(lar): ${r.unknown.join(', ')}; bilinenler: ${r.known.join(', ')}`,
    'unknown-classes': (r) =>
      `bilinmeyen veri sınıf(lar)ı: ${r.unknown.join(', ')}; bilinenler: ${r.known.join(', ')}`,
    limits: (r) =>
      `sınırlar DAKİKA/SAAT/GÜN biçiminde pozitif tam sayılar olmalı, girilen: "${r.value}"`,
    'sandbox-off': () => 'sandbox kapalı (SANDBOX=off)',
    branch: (r) => `şube pozitif bir tam sayı olmalı, girilen: "${r.value}"`,
    'no-branch': (r) => `${r.id} numaralı şube okuma modelinde yok (worker paneli eşitliyor mu?)`,
    'name-needed': () => 'istemcinin bir adı olmalı',
    'scopes-needed': () => 'istemcinin en az bir kapsamı olmalı',
    overlap: () => 'geçiş süresi 0’dan uzun ve en fazla 7 gün olmalı',
    'reason-needed': () => 'silme için bir gerekçe gerekli: üyenin neden silindiği',
    'already-erased': (r, at) => `${r.id} numaralı üye ${at} tarihinde zaten silinmiş`,
    'client-disabled': (r) =>
      `${r.clientKey} istemcisi devre dışı: portal bağlantısından önce etkinleştirin`,
    saved: (changes) => `(bundan önce kaydedilenler: ${changes})`,
  },
  common: {
    never: 'hiç',
    none: 'yok',
    all: 'tümü',
    unknown: 'bilinmiyor',
    show: 'Göster',
    filter: 'Süz',
    clientKey: 'İstemci anahtarı',
    scopes: 'Kapsamlar',
    personalData: 'Üyelerin kişisel verileri',
    saveChanges: 'Değişiklikleri kaydet',
    url: 'URL',
    endpointUrl: 'Uç nokta URL’si',
    description: 'Açıklama',
    types: 'Türler',
    state: 'Durum',
    id: 'No',
    client: 'İstemci',
    outcome: 'Sonuç',
    status: 'Durum kodu',
    actions: 'İşlemler',
    deliveries: 'Teslimatlar',
    backToSubscriptions: 'Tüm aboneliklere dön',
    signingSecret: 'İmzalama anahtarı',
    enable: 'Etkinleştir',
    disable: 'Devre dışı bırak',
    edit: 'Düzenle',
    range: ['', ' ile ', ' arası'],
  },
} satisfies typeof English;
