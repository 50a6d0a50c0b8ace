// The generated club's vocabulary: Turkish given and family names, branches, packages, products,
// market categories and staff roles, as a club in Istanbul would have them.

export const GIVEN = [
  'Ayşe',
  'Fatma',
  'Zeynep',
  'Elif',
  'Şükrü',
  'İsmail',
  'Mehmet',
  'Çağla',
  'Gülşen',
  'Oğuz',
  'Ümit',
  'Işıl',
  'Ahmet',
  'Büşra',
  'Emre',
  'Özge',
];
export const FAMILY = [
  'Yılmaz',
  'Kaya',
  'Demir',
  'Şahin',
  'Çelik',
  'Öztürk',
  'Aydın',
  'Arslan',
  'Doğan',
  'Kılıç',
  'Işık',
  'Güneş',
  'Yıldız',
  'Aksoy',
];
export const BRANCHES = [
  'Kadıköy',
  'Beşiktaş',
  'Üsküdar',
  'Şişli',
  'Ataşehir',
  'Bakırköy',
  'Çankaya',
  'Karşıyaka',
];
export const PACKAGES: [string, number, number | null, number | null][] = [
  ['Aylık Üyelik', 900, null, 1],
  ['3 Aylık Üyelik', 2400, null, 3],
  ['Yıllık Üyelik', 8000, null, 12],
  ['10 Günlük Deneme', 300, 10, null],
  ['Özel Ders 10 Seans', 5000, null, 2],
  ['Öğrenci Aylık', 600, null, 1],
];
export const PRODUCTS = [
  'Protein Bar',
  'Su 500 ml',
  'Enerji İçeceği',
  'Havlu',
  'Eldiven',
  'Shaker',
  'Kreatin',
  'Vitamin',
];
export const CATEGORIES = ['İçecek', 'Gıda', 'Ekipman', 'Takviye'];
export const ROLES = ['Yönetici', 'Resepsiyon', 'Antrenör', 'Muhasebe'];
