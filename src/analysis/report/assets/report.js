(function(){
try{
  function num(td){var v=td.getAttribute('data-v');
    return v===null?null:parseFloat(v);}
  document.querySelectorAll('table.sortable').forEach(function(tb){
    var ths=tb.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths,function(th,col){
      th.addEventListener('click',function(){
        var body=tb.tBodies[0],rows=Array.prototype.slice.call(body.rows);
        var asc=th.classList.contains('sorted-desc');
        Array.prototype.forEach.call(ths,function(x){
          x.classList.remove('sorted-asc','sorted-desc');});
        th.classList.add(asc?'sorted-asc':'sorted-desc');
        rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];
          var u=num(x),v=num(y),r;
          if(u!==null&&v!==null)r=u-v;
          else r=x.textContent.localeCompare(y.textContent);
          return asc?r:-r;});
        rows.forEach(function(r){body.appendChild(r);});
      });
    });
  });
  var svg=document.getElementById('timeline');
  document.querySelectorAll('tr[data-p]').forEach(function(tr){
    var p=tr.getAttribute('data-p');
    tr.addEventListener('mouseenter',function(){
      tr.classList.add('hl');if(!svg||p==='')return;
      svg.classList.add('dim');
      svg.querySelectorAll('rect.c'+p).forEach(function(r){
        r.classList.add('hl');});});
    tr.addEventListener('mouseleave',function(){
      tr.classList.remove('hl');if(!svg)return;svg.classList.remove('dim');
      svg.querySelectorAll('rect.hl').forEach(function(r){
        r.classList.remove('hl');});});
  });
  var cb=document.getElementById('showcp');
  if(cb&&svg)cb.addEventListener('change',function(){
    svg.classList.toggle('nocp',!cb.checked);});
  if(window.__cptErrors.length)throw new Error(window.__cptErrors[0]);
  var ok=document.createElement('div');ok.id='cpt-js-ok';
  var pr=document.getElementById('procs');
  ok.setAttribute('data-rows',pr?pr.tBodies[0].rows.length:0);
  ok.setAttribute('data-rects',svg?svg.querySelectorAll('rect.seg').length:0);
  ok.setAttribute('data-cp',svg?svg.querySelectorAll('.cp').length:0);
  ok.hidden=true;document.body.appendChild(ok);
}catch(e){
  var d=document.createElement('div');d.id='cpt-js-error';
  d.textContent='report script error: '+e;d.style.color='#a31515';
  document.body.appendChild(d);
}
})();
